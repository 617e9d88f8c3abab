#!/usr/bin/env bash
# Installs what is missing, builds gatescope, and runs the main job on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target gatescope
# With a display: the viewer in compare mode (FoX vs Transformer samples); without one (or with
# --headless): traces, compare.json and figures under out/demo, and where they are.
exec build/default/app/gatescope demo --out out/demo "$@"
