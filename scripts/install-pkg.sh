#!/usr/bin/env bash
# Packs pkg/ and installs the tarball as `credence` into this folder's
# node_modules, the way a user installs it (the demo and every JS test use it).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f credence-*.tgz
TARBALL=$(cd pkg && npm pack --silent --pack-destination ..)
npm install --no-save --no-audit --no-fund "./$TARBALL" >/dev/null
test -f node_modules/credence/package.json
echo "$TARBALL"
