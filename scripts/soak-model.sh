#!/usr/bin/env bash
# Soak run of the model-based random test (SPEC §6 invariants after every
# step): ≥ 200,000 operations natively on MemoryStore, then the packed package
# on MemoryStore and IndexedDbStore. Seeds print; replay with
# CREDENCE_MODEL_SEED=<n>. Knobs: CREDENCE_SOAK_OPS (native, default 200000),
# CREDENCE_SOAK_JS_OPS (per JS store, default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "native: ${CREDENCE_SOAK_OPS:-200000} random operations on MemoryStore"
CREDENCE_MODEL_OPS="${CREDENCE_SOAK_OPS:-200000}" cargo test --release --test model_random -- --nocapture random_interleavings

step "packed package: ${CREDENCE_SOAK_JS_OPS:-20000} random operations per store"
[ -d node_modules/credence ] || bash scripts/install-pkg.sh >/dev/null
node js-tests/soak/model-soak.mjs "${CREDENCE_SOAK_JS_OPS:-20000}" ${CREDENCE_MODEL_SEED:-}
