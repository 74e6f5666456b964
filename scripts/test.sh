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

step "all tests passed"
