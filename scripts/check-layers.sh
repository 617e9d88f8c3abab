#!/usr/bin/env bash
# The layer rules of README.md's layout table, checked on the sources (ctest runs it as
# Layering.Includes, so the test command fails on a forbidden include):
#   data/     includes only data/ (and no Qt, ImGui or LibTorch)
#   kernels/  includes only kernels/ and data/common/ (the shared Result vocabulary)
#   core/     never includes engine/, widgets/ or app/; no Qt, ImGui or LibTorch
#   engine/   never includes widgets/ or app/; no Qt or ImGui; LibTorch in its .cpp files and,
#             among headers, only in the model internals (models/, nn/, train/) and torch_pch.h,
#             so the job headers app/ uses (trace/, jobs/) name no LibTorch type
#   widgets/  never includes app/ or engine/ (the viewer is handed the trace job by app/)
#   widgets/, app/: no LibTorch include at all
#   tests/core, tests/widgets: nothing of engine/ or LibTorch (their suites link no LibTorch)
#   python/   (the pybind11 modules) no LibTorch include; engine/ only in engine_module.cpp (the
#             _engine module), Qt and widgets/ only in figures_module.cpp (_figures), so the
#             reading module _core stays LibTorch- and Qt-free
#   HDF5 (<hdf5.h>, its H5*public.h, data/h5/) only inside data/ and tests/data/: nowhere else
#             includes it, nor a data/ header that reaches it through other data/ headers, so
#             core/, engine/, widgets/ and app/ see traces only through the typed data/trace API
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
    forbid core "engine/|widgets/|app/|$qt|$torch" "core/ is UI-free and LibTorch-free"
    forbid engine "widgets/|app/|$qt" "engine/ is UI-free"
    forbid engine "$torch" "LibTorch headers belong to engine's model internals" \
        '^engine/(models|nn|train)/|^engine/torch_pch\.h:|^engine/[a-z_/]+\.cpp:'
    forbid widgets "app/|engine/|$torch" "widgets/ is a client of core; app/ hands it the trace job"
    forbid app "$torch" "app/ reaches LibTorch only through engine/"
    forbid tests/core "engine/|$torch" "core_tests link no LibTorch"
    forbid tests/widgets "engine/|$torch" "widgets_tests link no LibTorch"
    forbid python "$torch" "python/ reaches LibTorch only through engine/ (gatescope._engine)"
    forbid python "engine/" "only gatescope._engine (engine_module.cpp) links the engine" \
        '^python/src/engine_module\.cpp:'
    forbid python "app/|widgets/|$qt" "only gatescope._figures (figures_module.cpp) links Qt" \
        '^python/src/figures_module\.cpp:'
    local hdf5
    hdf5=$(hdf5_headers)
    for folder in kernels core engine widgets app bench fuzz python; do
        forbid "$folder" "$hdf5" "HDF5 stays inside data/ (use the typed data/trace API)"
    done
    forbid tests "$hdf5" "HDF5 stays inside data/ and tests/data/" '^tests/data/'
    return $found
}

# The include regex of everything that brings HDF5 in: its own headers, data/h5/, and the data/
# headers that include any of these, directly or through each other (grown to a fixed point).
hdf5_headers() {
    local reach='hdf5\.h|hdf5_hl\.h|H5[A-Za-z]*public\.h|data/h5/' grew=1 header
    while ((grew)); do
        grew=0
        while IFS= read -r header; do
            reach+="|${header//./\\.}"
            grew=1
        done < <(grep -rlE --include='*.h' \
            "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($reach)" data 2>/dev/null |
            grep -vE "^data/h5/|^($reach)\$")
    done
    echo "$reach"
}

self_test() {
    tmp=""
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp"/{data/trace,kernels/cpu,core/maps,engine/models,engine/trace,widgets/view,app/cli}
    mkdir -p "$tmp"/tests/{core,widgets,data,app} "$tmp"/{data/h5,fuzz,bench,python/src}
    echo '#include "core/maps/head_maps.h"' >"$tmp/data/trace/a.cpp"
    echo '#include "data/h5/handle.h"' >"$tmp/kernels/cpu/b.h"
    echo '#include "data/common/result.h"' >"$tmp/kernels/cpu/ok.h"
    echo '#include <QWidget>' >"$tmp/core/maps/c.cpp"
    echo '#include <torch/torch.h>' >"$tmp/core/maps/d.cpp"
    echo '#include "engine/trace/trace_job.h"' >"$tmp/core/maps/g.h"
    echo '#include <torch/torch.h>' >"$tmp/engine/trace/h.h"
    echo '#include "engine/trace/trace_job.h"' >"$tmp/widgets/view/i.cpp"
    echo '#include "engine/models/registry.h"' >"$tmp/tests/core/j.cpp"
    echo '#include <QWidget>' >"$tmp/engine/trace/k.cpp"
    echo '#include <torch/torch.h>' >"$tmp/engine/models/ok.h"
    echo '#include <torch/torch.h>' >"$tmp/engine/trace/ok.cpp"
    echo '#include "engine/nn/linear.h"' >"$tmp/widgets/view/e.cpp"
    echo '  #  include <ATen/ATen.h>' >"$tmp/app/cli/f.cpp"
    echo '#include <hdf5.h>' >"$tmp/data/h5/ok.h"
    echo '#include "data/h5/ok.h"' >"$tmp/data/trace/inner.h"
    echo '#include "data/trace/inner.h"' >"$tmp/data/trace/outer.h"  # reaches HDF5 two steps down
    echo '#include "data/common/result.h"' >"$tmp/data/trace/clean.h"
    echo '#include "data/trace/outer.h"' >"$tmp/core/maps/h5_through_trace.h"
    echo '#include <H5Ppublic.h>' >"$tmp/widgets/view/h5_public.cpp"
    echo '#include "data/h5/ok.h"' >"$tmp/fuzz/h5_wrapper.cpp"
    echo '#include <hdf5.h>' >"$tmp/tests/app/h5_raw.cpp"
    echo '#include "data/trace/clean.h"' >"$tmp/app/cli/trace_ok.cpp"
    echo '#include "data/h5/ok.h"' >"$tmp/tests/data/h5_ok.cpp"
    echo '#include "engine/trace/trace_job.h"' >"$tmp/python/src/l.cpp"
    echo '#include "engine/trace/trace_job.h"' >"$tmp/python/src/engine_module.cpp"
    echo '#include <QGuiApplication>' >"$tmp/python/src/m.cpp"
    echo '#include "widgets/figures/figure.h"' >"$tmp/python/src/figures_module.cpp"
    local out
    out=$(check "$tmp")
    local status=$?
    local missing=0
    for file in data/trace/a.cpp kernels/cpu/b.h core/maps/c.cpp core/maps/d.cpp core/maps/g.h \
        engine/trace/h.h widgets/view/e.cpp widgets/view/i.cpp tests/core/j.cpp engine/trace/k.cpp \
        app/cli/f.cpp core/maps/h5_through_trace.h widgets/view/h5_public.cpp fuzz/h5_wrapper.cpp \
        tests/app/h5_raw.cpp python/src/l.cpp python/src/m.cpp; do
        grep -q "^layering: $file:" <<<"$out" || { echo "self-test: $file not reported"; missing=1; }
    done
    for file in kernels/cpu/ok.h engine/models/ok.h engine/trace/ok.cpp app/cli/trace_ok.cpp \
        tests/data/h5_ok.cpp data/h5/ok.h data/trace/outer.h python/src/engine_module.cpp \
        python/src/figures_module.cpp; do
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
    echo "layering: ok (data, kernels, core, engine, widgets, app, tests, python; HDF5 inside data)"
else
    exit 1
fi
