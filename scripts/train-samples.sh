#!/usr/bin/env bash
# Retrains the bundled sample models (resources/models/ARCH) with `gatescope train`: byte-level,
# 4 layers, width 128, 4 heads, on the Python standard library's sources with 30% of the
# sequences carrying a pass-key needle and 20% associative recall; resources/samples/held_out.py (textwrap.py) is held out.
# Usage: scripts/train-samples.sh GATESCOPE OUT_DIR [ARCH...]
#   DEVICE=cpu|cuda (default cpu), STEPS (default 2000), TIME_LIMIT (seconds per model, default
#   none), CORPUS (default: python3's stdlib folder)
# docs/sample-models.md records how the bundled ones were trained and what they reached.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$1
out=$2
shift 2
archs=${*:-fox transformer wall gated_fwa power gsa}
corpus=${CORPUS:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
for arch in $archs; do
    "$cli" train --arch "$arch" --corpus "$corpus" --held-out resources/samples/held_out.py \
        --layers 4 --hidden 128 --heads 4 --seq-len 512 --batch 32 --steps "${STEPS:-2000}" \
        --lr 3e-3 --warmup 200 --recall 0.3 --assoc 0.2 --eval-every 500 --max-corpus-mb 32 \
        --time-limit "${TIME_LIMIT:-0}" --device "${DEVICE:-cpu}" --out "$out/$arch"
done
