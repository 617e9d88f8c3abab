#!/usr/bin/env bash
# Installs what is missing, builds everything, runs every test through ctest, then (default
# preset) every fuzz target for a bounded number of executions (scripts/fuzz-ci.sh).
# Usage: scripts/test.sh [preset]   (default preset: default, the build scripts/run.sh shares;
# others: asan, headless)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
scripts/setup.sh
jobs=$(nproc)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs"
# Every parser of outside input fuzzed for a bounded number of executions under ASan + UBSan.
if [[ $preset == default ]]; then
    scripts/fuzz-ci.sh
fi
