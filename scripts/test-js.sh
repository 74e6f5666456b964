#!/usr/bin/env bash
# JS tests against the *packed* package: pack pkg/, install the tarball by
# name, run Vitest (ESM), Jest (CJS), the TypeScript consumer, and a fresh
# folder that installs the tarball and both imports and requires it.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "pack pkg/ and install the tarball as 'credence'"
TARBALL=$(bash scripts/install-pkg.sh)

step "vitest (ESM import)"
node_modules/.bin/vitest run

step "jest (CommonJS require)"
node_modules/.bin/jest

step "tsc: a TypeScript consumer (nodenext)"
node_modules/.bin/tsc -p js-tests/types/tsconfig.json

step "a separate folder: npm install the tarball, import and require it"
bash js-tests/smoke/separate-folder.sh "$PWD/$TARBALL"
