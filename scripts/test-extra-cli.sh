#!/usr/bin/env bash
# The `credence` CLI, `credence mcp` and examples/node-service, driven as a user
# would: spawned processes, a pseudo-terminal for -i (python3's pty), the MCP
# SDK's own client. Like scripts/test-js.sh, it tests the packed package:
# pkg/ is packed and the tarball installed as `credence` (bin included).
# Both run on each supported Node line (scripts/lib/node-runtimes.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh
node_runtimes_install

step "pack pkg/ and install the tarball as 'credence'"
rm -f credence-*.tgz
TARBALL=$(cd pkg && npm pack --silent --pack-destination ..)
npm install --no-save --no-audit --no-fund "./$TARBALL" >/dev/null
test -x node_modules/.bin/credence
command -v python3 >/dev/null || { echo "python3 is needed for the pseudo-terminal tests" >&2; exit 1; }

step "vitest: CLI, interactive (pty), MCP server, node-service, on each Node line"
with_each_node node_modules/.bin/vitest run --config js-tests/cli/vitest.config.mjs

step "the bin in a separate folder (its own dependencies, no pg), on each Node line"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
bin_in_separate_folder() (
  cd "$DIR"
  rm -rf node_modules package.json package-lock.json
  npm init -y >/dev/null
  npm install --no-audit --no-fund "$OLDPWD/$TARBALL" >/dev/null
  ./node_modules/.bin/credence --version
  ./node_modules/.bin/credence help | grep -q '^  mcp '
  set +e
  out=$(DATABASE_URL=postgres://127.0.0.1:1/x ./node_modules/.bin/credence recall 2>&1); code=$?
  set -e
  [ "$code" = 4 ] && grep -q "npm install pg" <<<"$out" || { echo "expected exit 4 and a hint to install pg, got $code: $out" >&2; exit 1; }
  echo "bin: ok (version, help, missing pg explained)"
)
with_each_node bin_in_separate_folder
