#!/usr/bin/env bash
# On the GPU machine (see ../shared/design/DEVICE.md): configures the headless project (no GUI)
# against the machine's PyTorch LibTorch (CUDA), builds the CLI, core_tests and the CUDA kernel
# tests, then runs:
#   1. kernels_cuda_tests: each CUDA kernel against the CPU path;
#   2. core_tests GPU cases: `trace --device cuda` against the CPU trace of the same input (the
#      fixtures and random FoX/Transformer checkpoints), then every other core test (CPU path);
#   3. the CLI end to end: `gatescope trace --device cuda` on fox/fox-pro, then `gatescope info`;
#   4. compute-sanitizer: memcheck on all kernel tests, racecheck/synccheck/initcheck on the small
#      ones, memcheck on one GPU trace (GATESCOPE_GPU_SANITIZE=0 skips this step).
# Exits non-zero on any failure or sanitizer report.
# Usage: scripts/gpu-test.sh [build-dir]     (default build/gpu-headless; logs under $OUT when set)
# Fixtures: GATESCOPE_FIXTURES, else build/gpufix (a copy carried to the machine: `run` sends only
# the repository; see docs/gpu.md), else ../shared/fixtures.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-headless}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH TORCH_CUDA_ARCH_LIST=9.0
fixtures=${GATESCOPE_FIXTURES:-}
[[ -z $fixtures && -d build/gpufix ]] && fixtures=$PWD/build/gpufix
[[ -z $fixtures ]] && fixtures=$(cd .. && pwd)/shared/fixtures
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

scripts/gpu-configure.sh "$build" "$logs" "$fixtures" || exit 1
start=$(date +%s)
ninja -C "$build" -j"$(nproc)" core_tests kernels_cuda_tests >"$logs/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build.log" | head -80; exit 1; }
echo "== built core_tests and kernels_cuda_tests in $(($(date +%s) - start)) s"
status=0
ninja -C "$build" -j"$(nproc)" gatescope >"$logs/build-cli.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build-cli.log" | head -40; status=1; }
tests=$build/tests/kernels_cuda_tests
core=$build/tests/core_tests
echo "== kernels_cuda_tests"
"$tests" 2>&1 | tee "$logs/tests.log" | grep -E "^\[(forward|tiles|pyramid)|FAILED|PASSED|SKIPPED|Failure|Expected|Which is|worst" || true
grep -q "\[  PASSED  \]" "$logs/tests.log" && ! grep -q "\[  FAILED  \]" "$logs/tests.log" || status=1

echo "== core_tests: GPU traces against CPU traces (fixtures: $fixtures)"
# One process per case, so that a crash names its case and the others still run.
: >"$logs/gpu-trace.log"
for t in $("$core" --gtest_list_tests --gtest_filter='*GpuFixtureTrace*:*GpuRandomFoxTrace*:GpuTrace.*' |
    awk '/^[^ ]/{suite=$1} /^  /{print suite $1}'); do
    timeout 300 "$core" --gtest_filter="$t" >"$logs/case.log" 2>&1
    rc=$?
    cat "$logs/case.log" >>"$logs/gpu-trace.log"
    grep -E "^\[gpu-trace\]|Failure|Expected|Which is|error|Skipped" "$logs/case.log" | head -8
    if [[ $rc == 0 ]]; then echo "ok    $t"; else echo "FAIL  $t (exit $rc)"; status=1; fi
done
if [[ ${GATESCOPE_GPU_CPU_TESTS:-1} != 0 ]]; then
    echo "== core_tests: everything else (CPU path)"
    "$core" --gtest_filter='-*Gpu*' >"$logs/core-tests.log" 2>&1 || status=1
    grep -E "^\[  (PASSED|FAILED) |tests ran|SKIPPED \]" "$logs/core-tests.log" | head -20
fi

echo "== gatescope trace --device cuda (fox/fox-pro)"
cli=$build/app/gatescope
$cli trace --model "$fixtures/fox/fox-pro" --input "$fixtures/fox/fox-pro/expected.safetensors" \
    --tensor input_ids --out "$build/fox-pro-cuda.h5" --device cuda --dtype bfloat16 2>&1 | tail -2 || status=1
$cli info --json "$build/fox-pro-cuda.h5" 2>&1 | grep -E '"(device|attention_path|model_type)"' || status=1

if [[ ${GATESCOPE_GPU_SANITIZE:-1} != 0 ]]; then
    small='*N1000*:*N17*:*N1337_w257*:*N2001*'
    echo "== compute-sanitizer memcheck (all kernel tests)"
    compute-sanitizer --tool memcheck --error-exitcode 42 "$tests" >"$logs/memcheck.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|PASSED|FAILED" "$logs/memcheck.log" | tail -3
    for tool in racecheck synccheck initcheck; do
        echo "== compute-sanitizer $tool ($small)"
        compute-sanitizer --tool $tool --error-exitcode 42 "$tests" --gtest_filter="$small" \
            >"$logs/$tool.log" 2>&1 || status=1
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$logs/$tool.log" | tail -3
    done
    echo "== compute-sanitizer memcheck: GPU trace of fox/fox-pro (bf16) and a random FoX d=64"
    compute-sanitizer --tool memcheck --error-exitcode 42 "$core" \
        --gtest_filter='*GpuFixtureTrace*fox_fox_pro_bf16:*GpuRandomFoxTrace*fox_d64_N1337_bf16' \
        >"$logs/memcheck-trace.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|PASSED|FAILED" "$logs/memcheck-trace.log" | tail -3
fi
echo "gpu-test: $([[ $status == 0 ]] && echo OK || echo FAILED)"
exit $status
