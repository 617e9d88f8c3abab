#!/usr/bin/env bash
# Builds one libFuzzer target (the `fuzz` preset: clang, ASan + UBSan) and runs it for SECONDS:
#
#   scripts/fuzz.sh PARSER SECONDS [libFuzzer options...]     e.g. scripts/fuzz.sh trace_reader 600
#
# PARSER names fuzz/PARSER_fuzz.cpp, its committed seeds fuzz/corpus/PARSER/ and its optional
# dictionary fuzz/PARSER.dict. Inputs found on the way go to build/fuzz/corpus/PARSER/ (the
# committed seeds stay small), crashes, timeouts and out-of-memory inputs to
# build/fuzz/artifacts/PARSER/. Exits non-zero when libFuzzer found one.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh PARSER SECONDS [libFuzzer options...]"
parser=${1:?$usage}
seconds=${2:?$usage}
shift 2
[[ -f fuzz/${parser}_fuzz.cpp ]] || { echo "fuzz: no fuzz/${parser}_fuzz.cpp" >&2; exit 2; }

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "${parser}_fuzz"

work=build/fuzz/corpus/$parser
artifacts=build/fuzz/artifacts/$parser
mkdir -p "$work" "$artifacts"
# Leaks are not reported: HDF5 1.10 leaks on its error paths (docs/fuzzing.md).
options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
    -detect_leaks=0 -artifact_prefix="$artifacts/" -print_final_stats=1)
[[ -f fuzz/$parser.dict ]] && options+=(-dict="fuzz/$parser.dict")
exec "build/fuzz/fuzz/${parser}_fuzz" "${options[@]}" "$@" "$work" "fuzz/corpus/$parser"
