#!/usr/bin/env bash
# Soak run of the model-based random test (SPEC §6 invariants after every
# step): ≥ 200,000 operations natively on MemoryStore over several seeds, then
# the packed package on MemoryStore and IndexedDbStore. Every seed prints with
# its figures; replay one with CREDENCE_MODEL_SEED=<n>. Knobs:
# CREDENCE_SOAK_OPS (native total, default 200000), CREDENCE_SOAK_SEEDS (native
# seeds, default 4 fresh ones; CREDENCE_MODEL_SEED=<n> runs that one seed),
# CREDENCE_SOAK_JS_OPS (per JS store, default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

total="${CREDENCE_SOAK_OPS:-200000}"
if [ -n "${CREDENCE_MODEL_SEED:-}" ]; then
  seeds="$CREDENCE_MODEL_SEED"
else
  seeds="${CREDENCE_SOAK_SEEDS:-$(for _ in 1 2 3 4; do echo $(( (RANDOM << 15 | RANDOM) + 1 )); done)}"
fi
n=$(echo $seeds | wc -w)
per=$(( (total + n - 1) / n ))
step "native: $total random operations on MemoryStore, seeds: $(echo $seeds)"
cargo test --release --test model_random --no-run >/dev/null 2>&1 || cargo test --release --test model_random --no-run
done_ops=0
for seed in $seeds; do
  CREDENCE_MODEL_SEED="$seed" CREDENCE_MODEL_OPS="$per" cargo test --release --test model_random -- --nocapture random_interleavings 2>&1 | grep -E '^model|panicked|shrunk|^seed|^    |test result' 
  done_ops=$(( done_ops + per ))
done
echo "native soak: $done_ops operations over $n seed(s) ($(echo $seeds)), 0 invariant violations"

step "packed package: ${CREDENCE_SOAK_JS_OPS:-20000} random operations per store"
[ -d node_modules/credence ] || bash scripts/install-pkg.sh >/dev/null
node js-tests/soak/model-soak.mjs "${CREDENCE_SOAK_JS_OPS:-20000}" ${CREDENCE_MODEL_SEED:-}
