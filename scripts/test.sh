#!/usr/bin/env bash
# Every test: native Rust, Rust-in-wasm (Node), and the packed package in JS.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

bash scripts/build.sh

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
