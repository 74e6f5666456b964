#!/usr/bin/env bash
# Reliability: the public-API fuzzer (≥100,000 random and malformed calls
# against the packed package; the seed is printed so a failure replays with
# `node js-tests/fuzz/public-api.fuzz.mjs <calls> <seed>`).
set -euo pipefail
cd "$(dirname "$0")/.."
printf '\n==> fuzz: every public API, %s calls\n' "${CREDENCE_FUZZ_CALLS:-100000}"
node js-tests/fuzz/public-api.fuzz.mjs "${CREDENCE_FUZZ_CALLS:-100000}"
