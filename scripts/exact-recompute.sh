#!/usr/bin/env bash
# Issue 24, "exact means exact", past ctest's 8192 tokens: runs ExactRecompute (tests/engine/
# exact_recompute_test.cpp) at each token count given (default 65536 131072): a FoX traced with
# and without --factors-f16, tiles recomputed from the file (the viewer's path) against the
# model's own probabilities on 16 sampled rows of every layer and head. CPU only. The model is
# GATESCOPE_EXACT_MODEL: "tiny" (default here: a random FoX of 1 layer x 2 heads, so that 128k
# tokens run in minutes on 2 cores) or "sample" (the bundled 4 x 4 FoX, as ctest's 8192 tokens).
#   scripts/exact-recompute.sh [BUILD_DIR] [TOKENS...]
set -euo pipefail
build=${1:-build/default}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(65536 131072)
binary="$build/tests/engine_tests"
[ -x "$binary" ] || { echo "no $binary: build the engine_tests target first" >&2; exit 2; }
export GATESCOPE_EXACT_MODEL=${GATESCOPE_EXACT_MODEL:-tiny}
for n in "${counts[@]}"; do
    echo "== $n tokens, model $GATESCOPE_EXACT_MODEL ($(nproc) cores, $(date -u +%FT%TZ))"
    start=$(date +%s)
    GATESCOPE_EXACT_TOKENS=$n "$binary" --gtest_filter='ExactRecompute.*' | grep -E '^\[ *(exact|FAILED|OK)' || true
    echo "== $n tokens: $(( $(date +%s) - start )) s"
done
