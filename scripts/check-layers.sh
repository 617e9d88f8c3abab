#!/usr/bin/env bash
# The layer rules of README.md's layout table, checked on the sources (ctest runs it as
# Layering.Includes, so the test command fails on a forbidden include):
#   data/     includes only data/ (and no Qt, ImGui or LibTorch)
#   kernels/  includes only kernels/ and data/common/ (the shared Result vocabulary)
#   core/     never includes widgets/ or app/; no Qt or ImGui; LibTorch in its .cpp files and,
#             among headers, only in the model-running folders (models/, nn/, train/) and
#             torch_pch.h, so the headers widgets/ and app/ use name no LibTorch type
#   widgets/  never includes app/ or core's LibTorch internals (engine/nn/, engine/models/)
#   widgets/, app/: no LibTorch include at all
# Usage: scripts/check-layers.sh [root]      (default: the repository)
#        scripts/check-layers.sh --self-test (plants one violation per rule, expects each found)
set -uo pipefail

check() {
    local root=$1 found=0
    cd "$root" || return 2
    # forbid FOLDER REGEX WHY [EXCEPT-REGEX]: reports every #include line in FOLDER matching REGEX.
    forbid() {
        local folder=$1 regex=$2 why=$3 except=${4:-}
        [[ -d $folder ]] || return 0
        local hits
        hits=$(grep -rnE --include='*.h' --include='*.cpp' --include='*.cu' --include='*.cuh' \
            "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($regex)" "$folder" || true)
        [[ -n $except ]] && hits=$(grep -vE "$except" <<<"$hits" || true)
        [[ -z $hits ]] && return 0
        while IFS= read -r line; do
            echo "layering: $line: $why"
        done <<<"$hits"
        found=1
    }
    local qt='Q[A-Z][A-Za-z]*>|Qt[A-Za-z]+/|imgui'
    local torch='torch/|ATen/|c10/'
    forbid data "core/|kernels/|widgets/|app/|$qt|$torch" "data/ uses nothing above it"
    forbid kernels "core/|widgets/|app/|data/|$qt|$torch" \
        "kernels/ uses only data/common/" '"data/common/'
    forbid core "widgets/|app/|$qt" "core/ is UI-free"
    forbid core "$torch" "LibTorch headers belong to core's model-running folders" \
        '^core/(models|nn|train)/|^core/torch_pch\.h:|^core/[a-z_/]+\.cpp:'
    forbid widgets "app/|engine/nn/|engine/models/|$torch" "widgets/ is a client of core's public API"
    forbid app "$torch" "app/ reaches LibTorch only through core"
    return $found
}

self_test() {
    tmp=""
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp"/{data/trace,kernels/cpu,core/maps,core/models,widgets/view,app/cli}
    echo '#include "core/maps/head_maps.h"' >"$tmp/data/trace/a.cpp"
    echo '#include "data/h5/handle.h"' >"$tmp/kernels/cpu/b.h"
    echo '#include "data/common/result.h"' >"$tmp/kernels/cpu/ok.h"
    echo '#include <QWidget>' >"$tmp/core/maps/c.cpp"
    echo '#include <torch/torch.h>' >"$tmp/core/maps/d.h"
    echo '#include <torch/torch.h>' >"$tmp/engine/models/ok.h"
    echo '#include "engine/nn/linear.h"' >"$tmp/widgets/view/e.cpp"
    echo '  #  include <ATen/ATen.h>' >"$tmp/app/cli/f.cpp"
    local out
    out=$(check "$tmp")
    local status=$?
    local missing=0
    for file in data/trace/a.cpp kernels/cpu/b.h core/maps/c.cpp core/maps/d.h \
        widgets/view/e.cpp app/cli/f.cpp; do
        grep -q "^layering: $file:" <<<"$out" || { echo "self-test: $file not reported"; missing=1; }
    done
    for file in kernels/cpu/ok.h engine/models/ok.h; do
        grep -q "^layering: $file:" <<<"$out" && { echo "self-test: $file reported"; missing=1; }
    done
    [[ $status -eq 1 && $missing -eq 0 ]] || { echo "$out"; echo "self-test: FAILED"; exit 1; }
    echo "self-test: every planted violation found, allowed includes passed"
}

if [[ ${1:-} == --self-test ]]; then
    self_test
    exit 0
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if check "$root"; then
    echo "layering: ok (data, kernels, core, widgets, app)"
else
    exit 1
fi
