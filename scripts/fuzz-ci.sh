#!/usr/bin/env bash
# The fuzzing that the test command (scripts/test.sh, hence CI) runs: every libFuzzer target of
# fuzz/, built with the `fuzz` preset (clang, ASan + UBSan), for a fixed number of executions from
# a fixed seed, starting from the committed seed corpus and regressions only. Exits non-zero on the
# first crash, hang (-timeout) or memory overrun, with the input in build/fuzz/ci-artifacts/TARGET/
# (replay: build/fuzz/fuzz/TARGET_fuzz FILE); every such input is a bug to fix, then a regression
# input under fuzz/regressions/TARGET/. A fixed seed makes the parsers' runs repeat exactly; the
# trace reader's may not (HDF5 keeps caches and free lists across inputs, so coverage, and with
# it what libFuzzer keeps, depends on what ran before). Open-ended fuzzing to find new
# inputs is scripts/fuzz.sh. Runs per target: docs/fuzzing.md ("In CI").
#
#   scripts/fuzz-ci.sh [SCALE]     SCALE multiplies every target's runs (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-1}

# Runs per target: about 15 s each on one core of the 2-core development machine.
declare -A runs=(
    [safetensors_header]=400000 [config]=300000 [tokenizer]=60000 [npy]=2000000
    [recipe_json]=15000 [recipe_toml]=15000 [trace_reader]=10000
)
# HDF5 1.10 sizes a metadata cache entry from the file before it reads it (a forged root object
# header chunk asks for 4 GiB in H5Fopen); glibc and ASan map such a block lazily and HDF5 then
# fails the read, so the trace reader may allocate up to 4 GiB that it never touches. Touched
# memory stays bounded by -rss_limit_mb.
declare -A mallocLimit=([trace_reader]=4200)
targets=(trace_reader safetensors_header config tokenizer npy recipe_json recipe_toml)

if ! command -v clang++ >/dev/null; then
    echo "fuzz-ci: clang++ is missing (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
    exit 1
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" --target "${targets[@]/%/_fuzz}"

# HDF5 1.10 leaks a few KiB on its error paths (docs/fuzzing.md), so leak detection is off; an
# allocation ASan cannot serve returns null as glibc's does (scripts/fuzz.sh says why).
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:quarantine_size_mb=64
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# One target's run from the seed corpus and regressions; its log, and any input that failed, in
# build/fuzz/ci-artifacts/. Exit status 0 when clean.
fuzz_target() {
    local target=$1
    local work=build/fuzz/ci-corpus/$target artifacts=build/fuzz/ci-artifacts/$target
    rm -rf "$work" "$artifacts"
    mkdir -p "$work" "$artifacts"
    local inputs=("fuzz/corpus/$target")
    [[ -d fuzz/regressions/$target ]] && inputs+=("fuzz/regressions/$target")
    local largest
    largest=$(find "${inputs[@]}" -type f -printf '%s\n' | sort -n | tail -n 1)
    local options=(-seed=1 -runs=$((runs[$target] * scale)) -timeout=10 -rss_limit_mb=2048
        -malloc_limit_mb="${mallocLimit[$target]:-1024}" -max_len=$((${largest:-0} > 65536 ? ${largest:-0} : 65536))
        -detect_leaks=0 -artifact_prefix="$artifacts/" -print_final_stats=1)
    [[ -f fuzz/$target.dict ]] && options+=(-dict="fuzz/$target.dict")
    local log=build/fuzz/ci-artifacts/$target.log t0=$SECONDS
    "build/fuzz/fuzz/${target}_fuzz" "${options[@]}" "$work" "${inputs[@]}" >"$log" 2>&1 || return 1
    local executed
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz-ci: $target: ${executed:-?} executions, no crash ($((SECONDS - t0)) s)"
}

# The targets run side by side, one per core (each run is single-threaded and repeats exactly
# whatever runs beside it), the longest first so that the short ones fill the other cores.
start=$SECONDS
mkdir -p build/fuzz/ci-artifacts
lanes=$(nproc)
for target in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= lanes)); do wait -n || true; done
    (
        status=0
        fuzz_target "$target" || status=1
        echo $status >"build/fuzz/ci-artifacts/$target.status"
    ) &
done
wait
failed=0
for target in "${targets[@]}"; do
    [[ $(cat "build/fuzz/ci-artifacts/$target.status") == 0 ]] && continue
    failed=1
    log=build/fuzz/ci-artifacts/$target.log
    echo "fuzz-ci: $target FAILED; input and log in build/fuzz/ci-artifacts/$target/, $log:" >&2
    grep -E -A25 '^==[0-9]+==ERROR|^SUMMARY|runtime error|deadly signal|timeout' "$log" | head -60 >&2
done
((failed == 0)) || exit 1
echo "fuzz-ci: all ${#targets[@]} targets clean in $((SECONDS - start)) s"
