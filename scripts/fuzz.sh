#!/usr/bin/env bash
# Builds one libFuzzer target with the `fuzz` preset (clang, ASan + UBSan) and runs it for SECONDS.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET is a fuzz/TARGET_fuzz.cpp: safetensors_header, config, tokenizer, npy, recipe_json,
# recipe_toml. The run starts from the committed seeds in fuzz/corpus/TARGET and keeps what it
# finds in build/fuzz/corpus/TARGET; a crash is written to build/fuzz/crashes/TARGET/ and ends the
# run with a non-zero exit. Extra arguments go to libFuzzer (e.g. -jobs=2, -dict=FILE).
# Needs clang and libclang-rt-14-dev (scripts/setup.sh installs them).
set -euo pipefail

if (($# < 2)); then
    echo "usage: $0 TARGET SECONDS [libFuzzer options...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [[ ! -f fuzz/${target}_fuzz.cpp ]]; then
    echo "fuzz.sh: no target fuzz/${target}_fuzz.cpp" >&2
    exit 2
fi

cmake --preset fuzz >/dev/null
nice cmake --build --preset fuzz --target "${target}_fuzz"

corpus=build/fuzz/corpus/$target
crashes=build/fuzz/crashes/$target
mkdir -p "$corpus" "$crashes" "fuzz/corpus/$target"
exec nice "build/fuzz/fuzz/${target}_fuzz" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" "$@" \
    "$corpus" "fuzz/corpus/$target"
