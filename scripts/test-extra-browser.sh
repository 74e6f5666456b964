#!/usr/bin/env bash
# Browser tests in real Chromium (Debian's /usr/bin/chromium, never a
# downloaded one): the package as native ESM and through Vite, IndexedDbStore
# in one and two tabs, the browser-assistant example end to end, and the Rust
# binding tests under wasm-bindgen-test-runner + chromedriver. Run by
# scripts/test.sh; alone it builds pkg/ first if needed. About half a minute
# once the wasm test crate is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
started=$SECONDS

step "chromium + chromedriver (Debian packages)"
if [ ! -x /usr/bin/chromium ] || ! command -v chromedriver >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y chromium chromium-driver || { apt-get update && apt-get install -y chromium chromium-driver; }
fi
/usr/bin/chromium --version 2>/dev/null

if [ ! -f pkg/index.browser.js ]; then
  bash scripts/build.sh
fi

step "tsc: a browser TypeScript consumer of IndexedDbStore (moduleResolution bundler)"
if ! cmp -s pkg/index.d.ts node_modules/credence/index.d.ts; then
  # test-js.sh installs the packed package; alone, install it here.
  packdir=$(mktemp -d)
  tarball=$(cd pkg && npm pack --silent --pack-destination "$packdir" | tail -1)
  npm install --no-save --no-audit --no-fund "$packdir/$tarball" >/dev/null
  rm -rf "$packdir"
fi
node_modules/.bin/tsc -p js-tests/types/tsconfig.browser.json

step "Chromium: native ESM, IndexedDbStore cases, two tabs, Vite build"
node --test js-tests/browser/package.test.mjs

step "Chromium: the browser-assistant dashboard end to end (screenshot: artifacts/dashboard.png)"
node --test js-tests/browser/dashboard.test.mjs

step "cargo test --target wasm32-unknown-unknown in headless Chromium (chromedriver)"
WASM_BINDGEN_USE_BROWSER=1 cargo test --target wasm32-unknown-unknown --test wasm_bindings

step "browser tests passed in $((SECONDS - started)) s"
