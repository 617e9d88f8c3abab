#!/bin/bash
# One device call: build, correctness cases, the timing table against the mma.sync kernel, then
# SDPA Flash / FlexAttention (FoX) in the same run through compare_sdpa.py. Logs under $OUT.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
out=${OUT:-/tmp/wgmma_out}
mkdir -p "$out"
bench/gpu/wgmma/build.sh "$@" 2>&1 | tail -8 || exit 1
timeout 300 build/wgmma/wgmma_test 2>&1 | tee "$out/test.log" | grep -v "^PASS"
if [ "${COMPARE:-1}" = 1 ]; then
    timeout 400 python3 bench/gpu/compare_sdpa.py --bench build/wgmma/wgmma_test \
        --flex-n "${FLEX_N:-4096,16384,65536}" --json "$out/compare.json" 2>&1 |
        tee "$out/compare.log" | grep -v "^row"
fi
