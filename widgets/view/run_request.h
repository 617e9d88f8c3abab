// File > Run Model on Text, display-free: the dialog's inputs as text (what QSettings keeps
// between runs), turned into a core::TraceRequest with the CLI's own parsers (`gatescope trace`
// --range, --layers, --heads, --device, --dtype, --no-pyramids, --pyramid-side), and the trace
// job's progress in words.
#pragma once

#include <cstdint>
#include <string>

#include "core/trace/trace_request.h"
#include "data/common/result.h"

namespace gatescope::widgets {

/// What the Run Model dialog asks for, as typed.
struct RunInputs {
    std::string model;   ///< checkpoint folder
    std::string input;   ///< text (or token ids) file
    std::string out;     ///< trace to write
    std::string range;   ///< "START:END" of tokens, END exclusive; empty: all
    std::string layers;  ///< "0,5,10-12"; empty: all
    std::string heads;   ///< heads to build pyramids for; empty: all
    std::string device = "cpu";
    std::string dtype = "float32";
    bool pyramids = true;
    int64_t pyramidSide = 1024;  ///< finest stored pyramid level, cells a side
};

/// The request `inputs` stand for, or a Usage error naming the field (in the CLI's words:
/// "--range", "--layers", ...). Paths must not be empty.
Result<core::TraceRequest> toTraceRequest(const RunInputs& inputs);

/// One line for the progress label: what the job is doing and for how long, e.g.
/// "loading the checkpoint and reading the input (3 s)", "layer 2 of 4 recorded, 1418 tokens
/// (5 s)", "writing the trace (9 s)".
std::string describeProgress(const core::TraceProgress& progress, double seconds);

/// The label when the job ends: "Done", "Cancelled: no trace was written" (a user's Cancel, or
/// a Cancelled error), or "Failed: " and the error.
std::string describeOutcome(bool ok, bool cancelled, const std::string& error);

}  // namespace gatescope::widgets
