#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test through ctest.
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
