#!/usr/bin/env bash
# On the GPU machine (its PyTorch LibTorch links oneMKL): traces one fixture on the CPU in RUNS
# fresh processes and checks that every trace stores the same numbers, bit for bit. The CPU
# trace is the reference the GPU traces are tested against, so it must not vary between runs;
# oneMKL 2024.2's first-call VML race did make it vary (engine/nn/cpu_math.h). Needs python3 with
# h5py and numpy (DEVICE.md). Exits 1 if any run differs or fails.
# Usage: scripts/cpu-trace-determinism.sh BUILD [FIXTURE] [RUNS]
#   BUILD: a headless build with the CLI (scripts/gpu-test.sh makes one);
#   FIXTURE: a folder under build/gpufix or ../shared/fixtures (default gsa/gsa); RUNS: default 40.
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 fixture=${2:-gsa/gsa} runs=${3:-40}
root=build/gpufix
[[ -d $root ]] || root=../shared/fixtures
model=$root/$fixture
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq 1 "$runs"); do
    "$build/app/gatescope" trace --model "$model" --input "$model/expected.safetensors" \
        --input-kind safetensors --tensor input_ids --dtype float32 --store-values \
        --compression none --device cpu --out "$dir/run$i.h5" >"$dir/run$i.log" 2>&1 ||
        { echo "run $i failed:"; tail -3 "$dir/run$i.log"; exit 1; }
done
python3 - "$dir" <<'PY'
import collections, glob, sys
import h5py, numpy as np

def numbers(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(
            obj, h5py.Dataset) and obj.dtype.kind in "fiu" else None)
    return out

runs = {p: numbers(p) for p in sorted(glob.glob(sys.argv[1] + "/run*.h5"))}
outcomes = collections.defaultdict(list)
for path, data in runs.items():
    outcomes[b"".join(data[k].tobytes() for k in sorted(data))].append(path)
print(f"{len(runs)} CPU traces, {len(outcomes)} distinct outcome(s)")
if len(outcomes) > 1:
    groups = sorted(outcomes.values(), key=len, reverse=True)
    first = runs[groups[0][0]]
    for group in groups[1:]:
        other = runs[group[0]]
        worst = max((float(np.max(np.abs(first[k].astype(np.float64) - other[k]))), k)
                    for k in first if first[k].shape == other[k].shape and first[k].size)
        print(f"  {len(group)} run(s) differ; largest difference {worst[0]:.3e} in {worst[1]}")
    sys.exit(1)
PY
