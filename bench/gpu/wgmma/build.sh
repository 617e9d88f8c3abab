#!/bin/bash
# Builds wgmma_test (run from the repository root): the sm_90a kernel, the mma.sync kernel it is
# compared with, and the test/bench main. Extra arguments go to nvcc.
set -euo pipefail
out=${OUT_DIR:-build/wgmma}
mkdir -p "$out"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
flags=(-std=c++17 -O3 -I. --expt-relaxed-constexpr -lineinfo "$@")
"$nvcc" "${flags[@]}" -gencode=arch=compute_90a,code=sm_90a -Xptxas -v \
    -c kernels/cuda/attention_forward_wgmma.cu -o "$out/wgmma.o" 2> "$out/ptxas.log" ||
    { cat "$out/ptxas.log"; exit 1; }
grep -E "C75|spill|registers" "$out/ptxas.log" | sort | uniq -c | sed -E 's/_ZN9gatescope[^ ]*wgmmaForward//' >&2 || true
"$nvcc" "${flags[@]}" -gencode=arch=compute_90,code=sm_90 -c kernels/cuda/attention_forward_mma.cu -o "$out/mma.o"
"$nvcc" "${flags[@]}" -gencode=arch=compute_90,code=sm_90 -c kernels/cuda/tensor_map.cu -o "$out/tensor_map.o"
"$nvcc" "${flags[@]}" -gencode=arch=compute_90,code=sm_90 -c bench/gpu/wgmma/wgmma_test.cu -o "$out/test.o"
"$nvcc" -o "$out/wgmma_test" "$out/wgmma.o" "$out/mma.o" "$out/tensor_map.o" "$out/test.o"
echo "built $out/wgmma_test" >&2
