#!/bin/bash
# One device call, A/B: two wgmma_test binaries built here (bench/gpu/wgmma/build.sh with
# OUT_DIR=<dir>, object files removed, both dirs carried), the second one's correctness cases,
# kernels_cuda_tests' forward tests from a fresh build directory (the device keeps old build dirs,
# and ninja does not rebuild sources whose copied mtimes look old), then both timing tables.
# Usage: bench/gpu/wgmma/device_ab.sh BASE_DIR NEW_DIR. Logs under $OUT.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
base=$1 new=$2 out=${OUT:-/tmp/wgmma_out} b=build/w64-$RANDOM
mkdir -p "$out"
(cmake -S tests/cuda -B $b -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > "$out/gk.log" 2>&1 &&
    ninja -C $b kernels_cuda_tests >> "$out/gk.log" 2>&1; echo "ninja rc=$?" >> "$out/gk.log") &
timeout 100 "$new/wgmma_test" --tests > "$out/test.log" 2>&1
echo "standalone tests rc=$?"
grep -v "^PASS" "$out/test.log" | tail -20
wait
tail -1 "$out/gk.log"
timeout 100 $b/kernels_cuda_tests --gtest_filter='Kernels/ForwardTest.*' > "$out/gtest.log" 2>&1
echo "gtest rc=$?"
grep -E "FAILED|PASSED" "$out/gtest.log" | tail -8
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv,noheader
for dir in "$base" "$new"; do
    timeout 60 "$dir/wgmma_test" --bench > "$out/bench_$(basename "$dir").log" 2>&1
    echo "$dir rc=$?"
done
