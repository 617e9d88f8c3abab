#!/usr/bin/env bash
# Builds one libFuzzer target with the `fuzz` preset (clang, ASan + UBSan) and runs it for SECONDS:
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]     e.g. scripts/fuzz.sh trace_reader 600
#
# TARGET names fuzz/TARGET_fuzz.cpp: safetensors_header, config, tokenizer, npy, recipe_json,
# recipe_toml, trace_reader. The run starts from the committed seeds fuzz/corpus/TARGET/ plus the
# inputs found before (build/fuzz/corpus/TARGET/, not committed) and uses the dictionary
# fuzz/TARGET.dict when there is one. Crashes, timeouts and out-of-memory inputs go to
# build/fuzz/artifacts/TARGET/; the script exits non-zero when libFuzzer found one. Extra
# arguments go to libFuzzer (e.g. -jobs=2). Needs clang and libclang-rt-14-dev (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]"
target=${1:?$usage}
seconds=${2:?$usage}
shift 2
[[ -f fuzz/${target}_fuzz.cpp ]] || { echo "fuzz.sh: no fuzz/${target}_fuzz.cpp" >&2; exit 2; }

cmake --preset fuzz >/dev/null
nice cmake --build --preset fuzz --target "${target}_fuzz"

work=build/fuzz/corpus/$target
artifacts=build/fuzz/artifacts/$target
mkdir -p "$work" "$artifacts" "fuzz/corpus/$target"
# Inputs up to 64 KiB, or the largest seed where one is larger (the trace seeds are).
largest=$(find "fuzz/corpus/$target" -type f -printf '%s\n' | sort -n | tail -n 1)
max_len=$((${largest:-0} > 65536 ? ${largest:-0} : 65536))
# Leaks are not reported: HDF5 1.10 leaks on its error paths (docs/fuzzing.md).
# The trace reader may allocate up to 4 GiB it never touches (scripts/fuzz-ci.sh says why).
malloc_limit=1024
[[ $target == trace_reader ]] && malloc_limit=4200
options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit"
    -max_len="$max_len" -detect_leaks=0 -artifact_prefix="$artifacts/" -print_final_stats=1)
[[ -f fuzz/$target.dict ]] && options+=(-dict="fuzz/$target.dict")
# An allocation ASan cannot serve at all (over 1 TiB: HDF5 sizes metadata entries from the file)
# returns null, as glibc's malloc does in the release build, where HDF5 then reports "memory
# allocation failed" and gatescope an error naming the file; -malloc_limit_mb still stops on any
# single allocation over that limit that succeeds.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:allocator_may_return_null=1
exec nice "build/fuzz/fuzz/${target}_fuzz" "${options[@]}" "$@" "$work" "fuzz/corpus/$target"
