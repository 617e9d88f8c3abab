#!/usr/bin/env bash
# On the GPU machine: benchmarks, all numbers of one table measured in the same run.
#   kernels: bench/gpu/compare_sdpa.py times gatescope's forward beside PyTorch SDPA (FA2 and
#            cuDNN), FlexAttention (FoX score_mod) and, when a copy of the FoX authors' Triton
#            kernel is carried in .anchors/ (git-ignored; cp ../shared/anchors/fox_official_attention.py
#            .anchors/), that kernel; then GatedFWA, power and Wall against their anchors (--gated:
#            FlexAttention where a score_mod expresses them; Wall against the authors' Triton
#            forward when .anchors/wall_official_forward.py is there, docs/gpu.md; its autotuner
#            adds about 5 minutes); plus tile recompute and pyramid
#            timings (standalone kernels build, tests/cuda/CMakeLists.txt).
#   trace:   the instrumentation overhead of `trace --device cuda` on a 760M-size FoX Pro (random
#            weights, bf16) at 16k tokens and peak device memory at 64k tokens
#            (tests/engine/gpu_trace_bench_test.cpp, in the headless build of scripts/gpu-test.sh).
#   gsa:     `gatescope trace` of the gsa/gsa fixture model on 16k and 64k random ids, CUDA against
#            the CPU, with and without pyramids and compression (builds the CLI if missing).
# Usage: scripts/gpu-bench.sh [build-dir] [max-n] [kernels|trace|gsa|all]   (results under $OUT)
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
    fox_op=()
    [[ -f .anchors/fox_official_attention.py ]] && fox_op=(--fox-op .anchors)
    [[ -f .anchors/wall_official_forward.py ]] && fox_op+=(--wall-op .anchors)
    PYTHONUNBUFFERED=1 python3 bench/gpu/compare_sdpa.py --bench "$kbuild/cuda_attention_bench" \
        "${fox_op[@]}" --max-n "$maxn" --gated --json "$logs/bench.json" 2>&1 | tee "$logs/bench.log"
fi
if [[ $what == trace || $what == all ]]; then
    core=$build/tests/engine_tests
    [[ -x $core ]] || { echo "build $build first (scripts/gpu-test.sh $build)"; exit 1; }
    for n in 16384 65536; do
        echo "== $(date -u +%FT%TZ) trace overhead, FoX Pro 760M-size, N = $n"
        GATESCOPE_GPU_BENCH_TOKENS=$n "$core" --gtest_filter='GpuTraceBench.*' 2>&1 |
            tee "$logs/trace-bench-$n.log" | grep -E "^\[gpu-bench\]|FAILED|Failure|error"
    done
fi
if [[ $what == gsa || $what == all ]]; then
    cli=$build/app/gatescope fixtures=build/gpufix
    [[ -d $fixtures ]] || fixtures=../shared/fixtures
    if [[ ! -x $cli ]]; then
        scripts/gpu-configure.sh "$build" "$logs" "$PWD/$fixtures" >/dev/null &&
            ninja -C "$build" gatescope >"$logs/build-cli.log" 2>&1 ||
            { grep -E "error|FAILED" -A3 "$logs/build-cli.log" | head -40; exit 1; }
    fi
    # Each line: median of 3 fresh processes, the seconds `trace` reports (load to commit).
    for n in 16384 65536; do
        python3 -c "import random; random.seed(7); print(*(random.randrange(512) for _ in range($n)))" >"$logs/ids$n.txt"
        for args in "cuda" "cuda --no-pyramids" "cuda --compression none" \
            "cuda --no-pyramids --compression none" "cpu" "cpu --no-pyramids"; do
            [[ $n == 65536 && $args == cpu ]] && continue  # CPU pyramids at 64k: minutes
            times=$(for run in 1 2 3; do
                "$cli" trace --model "$fixtures/gsa/gsa" --input "$logs/ids$n.txt" --input-kind ids \
                    --device $args --out /tmp/gatescope-gsa-bench.h5 2>&1 | grep -oE "in [0-9.]+s" | tr -dc '0-9.\n'
            done | sort -n | tr '\n' ' ') || { echo "[gsa-trace] N=$n --device $args: failed"; exit 1; }
            echo "[gsa-trace] N=$n --device $args: $times(s; median in the middle)"
        done
    done
    rm -f /tmp/gatescope-gsa-bench.h5
fi
