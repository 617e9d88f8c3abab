#!/usr/bin/env bash
# On the GPU machine (see ../shared/design/DEVICE.md): configures the headless project (no GUI)
# against the machine's PyTorch LibTorch (CUDA), builds the CLI, engine_tests and the CUDA kernel
# tests, then runs:
#   1. kernels_cuda_tests: each CUDA kernel against the CPU path;
#   2. engine_tests GPU cases: `trace --device cuda` against the CPU trace of the same input (the
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
ninja -C "$build" -j"$(nproc)" engine_tests kernels_cuda_tests >"$logs/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build.log" | head -80; exit 1; }
echo "== built engine_tests and kernels_cuda_tests in $(($(date +%s) - start)) s;" \
    "$(grep -m1 CMAKE_CXX_COMPILER: "$build/CMakeCache.txt" | cut -d= -f2);" \
    "libstdc++ NEEDED by engine_tests: $(readelf -d "$build/tests/engine_tests" | grep -c 'libstdc++')"
status=0 suites=0 teardown=0
ninja -C "$build" -j"$(nproc)" gatescope >"$logs/build-cli.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build-cli.log" | head -40; status=1; }
tests=$build/tests/kernels_cuda_tests
core=$build/tests/engine_tests
echo "== kernels_cuda_tests"
"$tests" 2>&1 | tee "$logs/tests.log" | grep -E "^\[(forward|tiles|pyramid)|FAILED|PASSED|SKIPPED|Failure|Expected|Which is|worst" || true
grep -q "\[  PASSED  \]" "$logs/tests.log" && ! grep -q "\[  FAILED  \]" "$logs/tests.log" || status=1

# One process per case (GPU traces) or per suite (CPU tests), so that a crash names its case and
# the others still run. A case counts by gtest's own summary (passed + skipped = ran, none
# failed); a crash after the summary shows as "exit N at teardown" (two C++ runtimes in one
# process did that before gpu-configure.sh linked the shared libstdc++ first; docs/gpu.md).
# Usage: runCase FILTER LOG  -> prints ok/FAIL, returns non-zero on failure
runCase() {
    timeout 600 "$core" --gtest_filter="$1" >"$logs/case.log" 2>&1
    local rc=$? ran passed skipped
    cat "$logs/case.log" >>"$2"
    grep -E "^\[gpu-trace\]|Failure|Expected|Which is|error:" "$logs/case.log" | head -8
    ran=$(grep -oE "^\[==========\] [0-9]+ tests? from .* ran" "$logs/case.log" | awk '{print $2}')
    passed=$(grep -oE "^\[  PASSED  \] [0-9]+" "$logs/case.log" | awk '{print $4}')
    skipped=$(grep -oE "^\[  SKIPPED \] [0-9]+" "$logs/case.log" | awk '{print $4}')
    if [[ -n $ran && $ran == $((${passed:-0} + ${skipped:-0})) ]] &&
        ! grep -q "^\[  FAILED  \]" "$logs/case.log"; then
        if [[ $rc == 0 ]]; then echo "ok    $1 ($ran)"; else echo "ok    $1 ($ran; exit $rc at teardown)"; fi
        return 0
    fi
    echo "FAIL  $1 (exit $rc; ran ${ran:-?}, passed ${passed:-0})"
    grep -E "^\[ RUN      \]" "$logs/case.log" | tail -1
    return 1
}
listCases() {
    "$core" --gtest_list_tests --gtest_filter="$1" | awk -v whole="$2" \
        '/^Running main/{next} /^[^ ]/{suite=$1; if (whole) print suite "*"} /^  / && !whole {print suite $1}'
}

echo "== engine_tests: GPU traces against CPU traces (fixtures: $fixtures)"
: >"$logs/gpu-trace.log"
for t in $(listCases '*GpuFixtureTrace*:*GpuRandomFoxTrace*:GpuPowerTrace.*:GpuWallTrace.*:GpuTrace.*:*Gpu*Intervention*' ""); do
    runCase "$t" "$logs/gpu-trace.log" || status=1
done
if [[ ${GATESCOPE_GPU_CPU_TESTS:-1} != 0 ]]; then
    echo "== engine_tests: everything else (CPU path), one process per suite"
    : >"$logs/core-tests.log"
    for t in $(listCases '-*Gpu*' 1); do
        runCase "$t" "$logs/core-tests.log" >"$logs/suite.out" || { status=1; cat "$logs/suite.out"; }
        grep -q "at teardown" "$logs/suite.out" && ((teardown++))
        ((suites++))
    done
    echo "$suites suites; $teardown of them passed and then crashed at teardown"
fi

echo "== gatescope trace --device cuda (fox/fox-pro)"
cli=$build/app/gatescope
$cli trace --model "$fixtures/fox/fox-pro" --input "$fixtures/fox/fox-pro/expected.safetensors" \
    --tensor input_ids --out "$build/fox-pro-cuda.h5" --device cuda --dtype bfloat16 2>&1 | tail -2 || status=1
$cli info --json "$build/fox-pro-cuda.h5" 2>&1 | grep -E '"(device|attention_path|model_type)"' || status=1
echo "== gatescope trace --device cuda --intervene gate=1@layers=1 (fox/fox-pro), compare"
$cli trace --model "$fixtures/fox/fox-pro" --input "$fixtures/fox/fox-pro/expected.safetensors" \
    --tensor input_ids --out "$build/fox-pro-cuda-off.h5" --device cuda --dtype bfloat16 \
    --intervene gate=1@layers=1 2>&1 | tail -2 || status=1
$cli compare "$build/fox-pro-cuda.h5" "$build/fox-pro-cuda-off.h5" 2>&1 | head -12 || status=1

if [[ ${GATESCOPE_GPU_SANITIZE:-1} != 0 ]]; then
    # fox_bf16_d64_N4096: the ping-pong warpgroups of the sm_90a forward (d = 64 from 4096 keys).
    small='*N1000*:*N17*:*N1337_w257*:*N2001*:*fox_bf16_d64_N4096'
    echo "== compute-sanitizer memcheck (all kernel tests but the 70k-token one)"
    compute-sanitizer --tool memcheck --error-exitcode 42 "$tests" --gtest_filter='-*LongSequence*' \
        >"$logs/memcheck.log" 2>&1 || status=1
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
