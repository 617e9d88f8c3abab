// The parts of the _core module, one file each (core_module.cpp defines the module and calls
// them): the tile and row calls, and the analyses.
#pragma once

#include <memory>

#include "py_support.h"
#include "trace_file.h"

namespace gatescope::python {

using TraceFileClass = py::class_<TraceFile, std::shared_ptr<TraceFile>>;

/// TraceFile.tile and TraceFile.row (tile_bindings.cpp).
void bindTiles(TraceFileClass& cls);

/// stats() and compare() (analysis_bindings.cpp).
void bindAnalyses(py::module_& m);

}  // namespace gatescope::python
