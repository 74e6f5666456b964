#!/usr/bin/env bash
# Reliability: the public-API fuzzer (≥100,000 random and malformed calls
# against the packed package; the seed is printed so a failure replays with
# `node js-tests/fuzz/public-api.fuzz.mjs <calls> <seed>`).
# Runs on each supported Node line (scripts/lib/node-runtimes.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh
node_runtimes_install
printf '\n==> fuzz: every public API, %s calls, on each Node line\n' "${CREDENCE_FUZZ_CALLS:-100000}"
with_each_node node js-tests/fuzz/public-api.fuzz.mjs "${CREDENCE_FUZZ_CALLS:-100000}"
