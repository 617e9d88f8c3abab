#!/usr/bin/env bash
# On the GPU machine: builds the CUDA bench (same build as scripts/gpu-test.sh) and runs
# bench/gpu/compare_sdpa.py, which times gatescope's forward beside PyTorch SDPA (Flash) and
# FlexAttention (FoX score_mod) in one run, plus tile recompute and pyramid timings.
# Usage: scripts/gpu-bench.sh [build-dir] [max-n]     (results under $OUT when set)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
maxn=${2:-65536}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH
if [[ ! -f $build/build.ninja ]]; then
    # The kernels layer alone (tests/cuda/CMakeLists.txt): no LibTorch, Qt or HDF5 needed.
    cmake -S tests/cuda -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
        >"$logs/configure.log" 2>&1 || { tail -40 "$logs/configure.log"; exit 1; }
fi
ninja -C "$build" cuda_attention_bench >"$logs/bench-build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$logs/bench-build.log" | head -60; exit 1; }
echo "== $(date -u +%FT%TZ) bench/gpu/compare_sdpa.py --max-n $maxn"
PYTHONUNBUFFERED=1 python3 bench/gpu/compare_sdpa.py --bench "$build/cuda_attention_bench" \
    --max-n "$maxn" --json "$logs/bench.json" 2>&1 | tee "$logs/bench.log"
