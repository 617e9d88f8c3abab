#!/usr/bin/env bash
# On the GPU machine: builds the headless CLI against the machine's LibTorch (CUDA) and trains the
# sample models there with scripts/train-samples.sh (DEVICE=cuda), packing each as $OUT/ARCH.tar
# (the device returns at most 8 files). How the bundled models
# were made: docs/sample-models.md.
# Usage: scripts/gpu-train-samples.sh [build-dir] [ARCH...]   (env: STEPS, TIME_LIMIT, CORPUS)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-headless}
shift || true
archs=(${*:-fox transformer wall gated_fwa power gsa})
logs=$build/logs
dest=${OUT:-$logs}
mkdir -p "$logs" "$dest"
scripts/gpu-configure.sh "$build" "$logs" || exit 1
start=$(date +%s)
ninja -C "$build" -j"$(nproc)" gatescope >"$logs/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build.log" | head -60; exit 1; }
echo "== built gatescope in $(($(date +%s) - start)) s"
nvidia-smi --query-gpu=name --format=csv,noheader
models=$build/sample-models
status=0
for arch in "${archs[@]}"; do
    start=$(date +%s)
    DEVICE=cuda scripts/train-samples.sh "$build/app/gatescope" "$models" "$arch" \
        >"$logs/train-$arch.log" 2>&1 || status=1
    grep -v "^progress" "$logs/train-$arch.log" | tail -3
    echo "== $arch: $(($(date +%s) - start)) s"
    # One archive per model, written as soon as it is trained: what is done comes back even if a
    # later model runs past the call's time limit.
    tar -C "$models" -cf "$dest/$arch.tar" "$arch" 2>/dev/null || status=1
done
exit $status
