#!/usr/bin/env bash
# Every test: native Rust, Rust-in-wasm (Node), and the packed package in JS.
# The packed-package suites run on each supported Node line; everything else
# (the build, wasm-bindgen-test-runner, Chromium's driver) on the newest.
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh

step "Node runtimes: ${NODE_RUNTIME_VERSIONS[*]} (installed into .tools/ when missing)"
node_runtimes_install
PATH="$(newest_node_bin):$PATH"
export PATH
echo "default node: $(node --version); npm $(npm --version)"

bash scripts/build.sh

step "cargo clippy -D warnings (native, tests, and the wasm bindings)"
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
cargo clippy --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown --no-default-features -- -D warnings

step "cargo test (native core)"
cargo test

step "cargo test --target wasm32-unknown-unknown (bindings, in Node)"
cargo test --target wasm32-unknown-unknown

bash scripts/test-js.sh

# Suites that need services or browsers (PostgreSQL, Chromium, MCP, eval)
# live in scripts/test-extra-*.sh, one file per area.
for extra in scripts/test-extra-*.sh; do
  [ -e "$extra" ] || continue
  bash "$extra"
done

step "all tests passed"
