#!/usr/bin/env bash
# `npm run bench -- --quick` (about 5 minutes once the native bench is
# compiled, most of it section 9's stores): every bench section runs, so none can rot. It fails only when a
# section crashes or an acknowledged write goes missing, never on speed.
# --no-baseline: the release the figures are set against (bench/baseline.mjs)
# is not built here; its first build costs minutes.
# PostgreSQL: DATABASE_URL if set, else a throwaway server (scripts/lib/pg-server.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
START=$(date +%s)

step "the packed package in node_modules"
if [ ! -f pkg/package.json ]; then bash scripts/build.sh; fi
if ! cmp -s pkg/index.cjs node_modules/credence/index.cjs || ! cmp -s pkg/node/credence_bg.wasm node_modules/credence/node/credence_bg.wasm; then
  bash scripts/install-pkg.sh >/dev/null
fi

step "cargo: the native bench binary (benches/native.rs)"
cargo bench --bench native --no-run --quiet

step "npm run bench -- --quick"
npm run --silent bench -- --quick --no-baseline

step "bench (quick) passed in $(( $(date +%s) - START )) s"
