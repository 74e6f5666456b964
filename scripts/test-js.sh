#!/usr/bin/env bash
# JS tests against the *packed* package: pack pkg/, install the tarball by
# name, then on each supported Node line (scripts/lib/node-runtimes.sh) run
# Vitest (ESM), Jest (CJS) and a fresh folder that installs the tarball and
# both imports and requires it; the TypeScript consumer is checked once.
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh

step "Node runtimes: ${NODE_RUNTIME_VERSIONS[*]} (installed into .tools/ when missing)"
node_runtimes_install

step "pack pkg/ and install the tarball as 'credence'"
TARBALL=$(bash scripts/install-pkg.sh)

step "vitest (ESM import), on each Node line"
with_each_node node_modules/.bin/vitest run

step "jest (CommonJS require), on each Node line"
with_each_node node_modules/.bin/jest

step "tsc: a TypeScript consumer (nodenext)"
node_modules/.bin/tsc -p js-tests/types/tsconfig.json
step "tsc: credence/tools wired into the AI SDK's generateText with no cast"
node_modules/.bin/tsc -p js-tests/types/tsconfig.tools.json

step "a separate folder: npm install the tarball, import and require it, on each Node line"
with_each_node bash js-tests/smoke/separate-folder.sh "$PWD/$TARBALL"

step "the package's shape: install figures (≤ 10 packages, ≤ 5 MB), one wasm, exports vs types, no DOM lib, Jest jsdom, bundle .gitignore, MCP SDK hint"
node js-tests/packaging/package-shape.mjs "$PWD/$TARBALL"

step "the README, run by a newcomer: the tarball installed by the README's own command into an empty folder, every code block run there (js, sh, json; marked skips listed with their reason), links absolute"
PATH="$(newest_node_bin):$PATH" node js-tests/newcomer/readme-blocks.mjs "$PWD/$TARBALL"
