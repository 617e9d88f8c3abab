#!/bin/bash
# One device call for the integrated kernel: the standalone cases (wgmma_test --tests), the
# kernels layer's GPU tests through tests/cuda/CMakeLists.txt, compute-sanitizer on a few small
# forward cases, and compare_sdpa.py over cuda_attention_bench (the dispatching entry point).
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
out=${OUT:-/tmp/wgmma_out}
mkdir -p "$out"
(bench/gpu/wgmma/build.sh > "$out/build_standalone.log" 2>&1 &&
    timeout 200 build/wgmma/wgmma_test --tests > "$out/test.log" 2>&1; echo "standalone rc=$?") &
cmake -S tests/cuda -B build/gk -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > "$out/gk.log" 2>&1 &&
    ninja -C build/gk kernels_cuda_tests cuda_attention_bench >> "$out/gk.log" 2>&1 ||
    { tail -30 "$out/gk.log"; exit 1; }
wait
grep -v "^PASS" "$out/test.log"
timeout 240 build/gk/kernels_cuda_tests 2>&1 | tee "$out/gtest.log" | grep -E "FAILED|PASSED|OK \]" | tail -40
timeout 120 compute-sanitizer --tool memcheck build/gk/kernels_cuda_tests \
    --gtest_filter='*transformer_bf16_d64_N17*:*fox_bf16_d64_N1000*:*fox_gqa_bf16_d128_N1000*' \
    2>&1 | tee "$out/sanitizer.log" | tail -6
timeout 300 python3 bench/gpu/compare_sdpa.py --bench build/gk/cuda_attention_bench \
    --flex-n "${FLEX_N:-4096,16384,65536}" --json "$out/compare.json" 2>&1 |
    tee "$out/compare.log" | grep -v "^row" | grep -v '^{"kernel": "\(tile\|pyramid\|layer\)'
