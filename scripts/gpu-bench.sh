#!/usr/bin/env bash
# On the GPU machine: benchmarks, all numbers of one table measured in the same run.
#   kernels: bench/gpu/compare_sdpa.py times gatescope's forward beside PyTorch SDPA (Flash) and
#            FlexAttention (FoX score_mod), plus tile recompute and pyramid timings (standalone
#            kernels build, tests/cuda/CMakeLists.txt).
#   trace:   the instrumentation overhead of `trace --device cuda` on a 760M-size FoX Pro (random
#            weights, bf16) at 16k tokens and peak device memory at 64k tokens
#            (tests/core/gpu_trace_bench_test.cpp, in the headless build of scripts/gpu-test.sh).
# Usage: scripts/gpu-bench.sh [build-dir] [max-n] [kernels|trace|all]   (results under $OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
maxn=${2:-65536}
what=${3:-kernels}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH
if [[ $what == kernels || $what == all ]]; then
    kbuild=build/gpu
    if [[ ! -f $kbuild/build.ninja ]]; then
        cmake -S tests/cuda -B "$kbuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
            >"$logs/configure.log" 2>&1 || { tail -40 "$logs/configure.log"; exit 1; }
    fi
    ninja -C "$kbuild" cuda_attention_bench >"$logs/bench-build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$logs/bench-build.log" | head -60; exit 1; }
    echo "== $(date -u +%FT%TZ) bench/gpu/compare_sdpa.py --max-n $maxn"
    PYTHONUNBUFFERED=1 python3 bench/gpu/compare_sdpa.py --bench "$kbuild/cuda_attention_bench" \
        --max-n "$maxn" --json "$logs/bench.json" 2>&1 | tee "$logs/bench.log"
fi
if [[ $what == trace || $what == all ]]; then
    core=$build/tests/core_tests
    [[ -x $core ]] || { echo "build $build first (scripts/gpu-test.sh $build)"; exit 1; }
    for n in 16384 65536; do
        echo "== $(date -u +%FT%TZ) trace overhead, FoX Pro 760M-size, N = $n"
        GATESCOPE_GPU_BENCH_TOKENS=$n "$core" --gtest_filter='GpuTraceBench.*' 2>&1 |
            tee "$logs/trace-bench-$n.log" | grep -E "^\[gpu-bench\]|FAILED|Failure|error"
    done
fi
