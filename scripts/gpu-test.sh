#!/usr/bin/env bash
# On the GPU machine (see ../shared/design/DEVICE.md): configures the kernels layer alone
# (tests/cuda/CMakeLists.txt: CUDA + GoogleTest, no Qt, LibTorch or HDF5, so other layers'
# dependencies cannot block it), builds the CUDA kernels' test program, runs it, then runs it
# again under compute-sanitizer (memcheck on everything; racecheck, synccheck and initcheck on
# the small cases). Exits non-zero on any failure or sanitizer report.
# Usage: scripts/gpu-test.sh [build-dir]        (default build/gpu; logs under $OUT when set)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

if [[ ! -f $build/build.ninja ]]; then
    # The kernels layer alone (tests/cuda/CMakeLists.txt): no LibTorch, Qt or HDF5 needed.
    cmake -S tests/cuda -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
        >"$logs/configure.log" 2>&1 || { tail -40 "$logs/configure.log"; exit 1; }
fi
targets=(kernels_cuda_tests)
[[ -n ${GATESCOPE_GPU_EXTRA_TARGETS:-} ]] && targets+=($GATESCOPE_GPU_EXTRA_TARGETS)
ninja -C "$build" "${targets[@]}" >"$logs/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$logs/build.log" | head -60; exit 1; }

tests=$build/kernels_cuda_tests
status=0
echo "== kernels_cuda_tests"
"$tests" 2>&1 | tee "$logs/tests.log" | grep -E "^\[(forward|tiles|pyramid)|FAILED|PASSED|SKIPPED|Failure|Expected|Which is|worst" || true
grep -q "\[  PASSED  \]" "$logs/tests.log" && ! grep -q "\[  FAILED  \]" "$logs/tests.log" || status=1

small='*N1000*:*N17*:*N1337_w257*'
echo "== compute-sanitizer memcheck (all tests)"
compute-sanitizer --tool memcheck --error-exitcode 42 "$tests" >"$logs/memcheck.log" 2>&1 || status=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$logs/memcheck.log" | tail -3
for tool in racecheck synccheck initcheck; do
    echo "== compute-sanitizer $tool ($small)"
    compute-sanitizer --tool $tool --error-exitcode 42 "$tests" --gtest_filter="$small" \
        >"$logs/$tool.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$logs/$tool.log" | tail -3
done
echo "gpu-test: $([[ $status == 0 ]] && echo OK || echo FAILED)"
exit $status
