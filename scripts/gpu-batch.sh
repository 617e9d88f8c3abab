#!/usr/bin/env bash
# On a GPU machine with several GPUs (the device tool's nvidia-h100-x2 or larger): `gatescope batch`
# across the GPUs of one host, measured and checked in one run.
#   1. builds the headless CLI against the machine's PyTorch LibTorch (scripts/gpu-configure.sh);
#   2. writes a 12-layer FoX (random weights, official layout, byte-level) and documents of
#      1k..32k tokens;
#   3. runs the recipe in one process on cuda (the baseline), then with `mpirun -n G` (G = the
#      GPUs) while nvidia-smi samples which GPU each process uses; twice: "written" (gates, loss
#      and pyramids: about 23 GB of traces, the disk shared by the GPUs) and "compute" (gates and
#      loss only);
#   4. compares every trace's per-token losses between the two, bit for bit, and prints the
#      devices the summary and the trace manifests name;
#   5. `trace --device cuda:1` against `--device cuda:0` on one input.
# Usage: [LAYERS=12 HIDDEN=768 HEADS=12 SIZES="32768 ..." SCENARIOS="written compute"]
#        scripts/gpu-batch.sh [build-dir]   (summaries under $OUT when set)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-headless}
logs=$build/logs            # build and run logs stay on the machine
results=${OUT:-$build/logs}  # the summaries come back
mkdir -p "$logs" "$results"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader
gpus=$(nvidia-smi -L | wc -l)
echo "== $gpus GPUs; mpirun: $(command -v mpirun || echo none)"
scripts/gpu-configure.sh "$build" "$logs" || exit 1
start=$(date +%s)
ninja -C "$build" -j"$(nproc)" gatescope >"$logs/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A3 "$logs/build.log" | head -60; exit 1; }
echo "== CLI built in $(($(date +%s) - start)) s"
cli=$PWD/$build/app/gatescope
# The model and documents (defaults: a 12-layer, 768-wide FoX; 12 documents of 1k..32k bytes).
layers=${LAYERS:-12} hidden=${HIDDEN:-768} heads=${HEADS:-12}
sizes=${SIZES:-32768 24576 16384 12288 8192 6144 4096 3072 2048 1024 1024 1024}
scenarios=${SCENARIOS:-written compute}
echo "== FoX $layers layers x $hidden wide, $heads heads; documents of $sizes bytes; $scenarios"
work=/tmp/gpu-batch
rm -rf "$work" && mkdir -p "$work/docs"
"$cli" train --arch fox --layers "$layers" --hidden "$hidden" --heads "$heads" --steps 1 --batch 1 --seq-len 256 \
    --device cuda --corpus README.md --out "$work/fox" >"$logs/train.log" 2>&1 ||
    { tail -20 "$logs/train.log"; exit 1; }
python3 - "$work/docs" "$sizes" <<'PY'
import random, sys
random.seed(7)
words = open('README.md').read().split()
for i, n in enumerate(int(s) for s in sys.argv[2].split()):
    text = ''
    while len(text) < n:
        text += ' '.join(random.choice(words) for _ in range(64)) + '\n'
    open(f'{sys.argv[1]}/doc{i:02d}.txt', 'w').write(text[:n])
PY
pair() {  # TAG PYRAMIDS(true|false): one process, then mpirun, same recipe
cat >"$work/recipe.json" <<'JSON'
{"output": "OUTDIR", "checkpoints": ["fox"], "inputs": ["docs"], "max_tokens": 65536,
 "trace": {"device": "cuda", "dtype": "bfloat16", "pyramids": PYRAMIDS, "factors": false,
           "compression": "none"},
 "analyses": {"attention": false}}
JSON
sed "s/OUTDIR/one/; s/PYRAMIDS/$2/" "$work/recipe.json" >"$work/one.json"
sed "s/OUTDIR/many/; s/PYRAMIDS/$2/" "$work/recipe.json" >"$work/many.json"

rm -rf "$work/one" "$work/many"
echo "== $1: one process, cuda (baseline)"
start=$(date +%s.%N)
"$cli" batch "$work/one.json" >"$logs/$1-one.log" 2>&1 || { tail -20 "$logs/$1-one.log"; exit 1; }
one=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
echo "one process: ${one} s"

echo "== $1: mpirun -n $gpus, cuda"
(while sleep 0.5; do nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader; done) \
    >"$logs/$1-nvidia-smi.log" 2>&1 &
sampler=$!
start=$(date +%s.%N)
OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --allow-run-as-root --oversubscribe \
    -n "$gpus" "$cli" batch "$work/many.json" >"$logs/$1-many.log" 2>&1
rc=$?
many=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
kill $sampler
grep -E "runs planned|ran [0-9]" "$logs/$1-many.log"
echo "mpirun -n $gpus: ${many} s (rc $rc); speedup $(python3 -c "print(f'{$one / $many:.2f}')")x"
echo "processes seen per GPU (nvidia-smi samples):"
sort -u "$logs/$1-nvidia-smi.log" | awk -F, '{print $2}' | sort | uniq -c
python3 - "$work" <<'PY'
import json, sys, h5py, numpy as np, collections
work = sys.argv[1]
one = json.load(open(f'{work}/one/summary.json'))
many = json.load(open(f'{work}/many/summary.json'))
assert [r['run'] for r in one] == [r['run'] for r in many]
same, tokens = 0, 0
for a, b in zip(one, many):
    assert a['state'] == b['state'] == 'done', (a, b)
    la = h5py.File(f"{work}/one/{a['trace']}")['per_token/loss'][:]
    lb = h5py.File(f"{work}/many/{b['trace']}")['per_token/loss'][:]
    same += la.tobytes() == lb.tobytes()
    tokens += a['tokens']
    if la.tobytes() != lb.tobytes():
        d = np.nanmax(np.abs(la - lb))
        print(f"  {a['run']}: max |loss difference| {d:.3g}")
print(f'{same}/{len(one)} traces bit-identical to the one-process run; {tokens} tokens')
for name, rows in (('one process', one), ('mpirun', many)):
    per = collections.defaultdict(float)
    for r in rows:
        per[r['host'].split(' rank ')[-1]] += r['seconds']
    print(f'{name}: seconds inside runs per rank:', {k: round(v, 1) for k, v in sorted(per.items())})
print('runs per device:', dict(collections.Counter(r['device'].split(' (')[0] for r in many)))
print('devices named:', sorted({r['device'] for r in many}))
m = json.loads(h5py.File(f"{work}/many/{many[0]['trace']}")['manifest'][()])
print('a trace manifest says device:', m.get('device'))
PY

start=$(date +%s.%N)
"$cli" batch "$work/many.json" --join >/dev/null 2>&1
echo "the join alone (summary, analyses, index): $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
echo "trace bytes: one $(du -sb $work/one/traces | cut -f1), many $(du -sb $work/many/traces | cut -f1)"
dd if=/dev/zero of=$work/dd.bin bs=16M count=256 conv=fsync 2>&1 | tail -1
rm -f $work/dd.bin
cp $work/one/summary.csv $results/$1-one-summary.csv; cp $work/many/summary.csv $results/$1-many-summary.csv
}
for scenario in $scenarios; do
    pair "$scenario" "$([[ $scenario == written ]] && echo true || echo false)"
done

echo "== trace --device cuda:1 against cuda:0"
for d in 0 1; do
    "$cli" trace --model "$work/fox" --input "$work/docs/doc04.txt" --out "$work/d$d.h5" \
        --device cuda:$d --dtype bfloat16 2>&1 | tail -1
done
python3 - "$work" <<'PY'
import sys, h5py, json
w = sys.argv[1]
a, b = (h5py.File(f'{w}/d{d}.h5') for d in (0, 1))
print('cuda:1 losses == cuda:0 losses:', a['per_token/loss'][:].tobytes() == b['per_token/loss'][:].tobytes())
for f in (a, b):
    print('  manifest device:', json.loads(f['manifest'][()]).get('device'))
PY
