// What if...: the request behind the viewer's "What if..." on a head (issue 27): one change to
// one head's gates (or the head ablated), turned into `trace --intervene` syntax (parsed by
// core::parseIntervention, so the viewer and the CLI accept the same things) and into a trace
// job of the current trace's checkpoint (its manifest's checkpoint.path) on the bytes the trace
// stores (/tokens/source_bytes, the exact text that was traced). When the trace cannot say what
// to run (no checkpoint path, the checkpoint is gone, an id input) the error says so plainly.
// Display-free.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/trace/trace_request.h"
#include "data/common/result.h"

namespace gatescope::widgets {

enum class WhatIfChange {
    ForgettingOff,  ///< gate=1
    Constant,       ///< gate=C
    ScaleLog,       ///< log_gate*S
    Clamp,          ///< gate=clamp(LO,HI)
    Ablate,         ///< ablate (the head's output is zero)
};

struct WhatIfChoice {
    WhatIfChange change = WhatIfChange::ForgettingOff;
    double value = 0.5;  ///< Constant: C; ScaleLog: S
    double low = 0, high = 1;
    int layer = 0, head = 0;
    std::optional<int> channel;  ///< one gate channel (per-channel gates); none: all
    std::string device;          ///< "cpu" or "cuda"; empty: the trace's (whatIfDevice)
};

/// The `--intervene` text of `choice`, e.g. "gate=1@layers=1;heads=2".
std::string interventionText(const WhatIfChoice& choice);

/// Where the job comes from: the trace's manifest (JSON as stored) and its source bytes.
struct WhatIfSource {
    nlohmann::json manifest;
    std::string sourceBytes;
};

/// "cuda" when the manifest says the trace ran on a GPU, else "cpu": where What if... runs the
/// changed trace unless the user chooses otherwise.
std::string whatIfDevice(const nlohmann::json& manifest);

/// The trace job of `choice` on `source`, writing `out`; the source bytes go to `inputFile`
/// (written here). The job repeats how the trace was made, so that the two differ by the change
/// alone: its compute dtype (a bfloat16 trace compared with a float32 run would mix rounding
/// into the loss delta), packed documents and what it recorded (layers, pyramid heads and
/// finest side, factors, values, pyramids), from the manifest; on `choice.device`. Errors (plain
/// words, Usage/Missing/Unsupported): the change does not parse (core::parseIntervention's
/// message), the manifest names no checkpoint, the checkpoint folder is not there, the trace was
/// made from token ids or stores no source bytes, `inputFile` cannot be written.
Result<core::TraceRequest> whatIfRequest(const WhatIfSource& source, const WhatIfChoice& choice,
                                         const std::filesystem::path& inputFile,
                                         const std::filesystem::path& out);

}  // namespace gatescope::widgets
