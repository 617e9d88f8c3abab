#include "widgets/view/run_request.h"

#include <cmath>

#include <fmt/format.h>

#include "core/input/list_syntax.h"

namespace gatescope::widgets {

Result<core::TraceRequest> toTraceRequest(const RunInputs& in) {
    auto usage = [](std::string message, std::string field) {
        return Error{ErrorKind::Usage, std::move(message), {}, std::move(field)};
    };
    if (in.model.empty()) return usage("choose a checkpoint folder", "checkpoint folder");
    if (in.input.empty()) return usage("choose an input text", "input text");
    if (in.out.empty()) return usage("choose where to write the trace", "trace to write");
    core::TraceRequest request;
    request.modelDir = in.model;
    request.input.path = in.input;
    request.out = in.out;
    if (!in.range.empty()) {
        auto range = core::parseRange(in.range, "--range");
        if (!range) return range.error();
        request.input.begin = range->begin;
        request.input.end = range->end;
    }
    auto lists = core::parseLayersAndHeads(in.layers, in.heads);
    if (!lists) return lists.error();
    request.layers = lists->layers;
    request.pyramidHeads = lists->heads;
    request.device = in.device.empty() ? "cpu" : in.device;
    if (in.dtype == "bfloat16")
        request.dtype = core::ComputeDType::BFloat16;
    else if (in.dtype == "float32" || in.dtype.empty())
        request.dtype = core::ComputeDType::Float32;
    else
        return usage("'" + in.dtype + "' is not float32 or bfloat16", "--dtype");
    request.storePyramids = in.pyramids;
    if (in.pyramidSide < 1 || in.pyramidSide > 16384)
        return usage("the finest pyramid level must have 1 to 16384 cells a side",
                     "--pyramid-side");
    request.pyramidFinestSide = in.pyramidSide;
    return request;
}

std::string describeProgress(const core::TraceProgress& p, double seconds) {
    const std::string elapsed = fmt::format("({:.0f} s)", std::floor(seconds));
    const std::string tokens = p.tokens > 0 ? fmt::format(", {} tokens", p.tokens) : "";
    if (p.stage == "loading")
        return "loading the checkpoint, reading the input and running the first layer " + elapsed;
    if (p.stage.rfind("layer ", 0) == 0) {
        int done = 0, total = 0;
        if (std::sscanf(p.stage.c_str(), "layer %d/%d", &done, &total) == 2)
            return fmt::format("layer {} of {} recorded{} {}", done, total, tokens, elapsed);
    }
    if (p.stage == "writing") return "writing the trace" + tokens + " " + elapsed;
    if (p.stage == "done") return "done" + tokens + " " + elapsed;
    return p.stage + tokens + " " + elapsed;
}

std::string describeOutcome(bool ok, bool cancelled, const std::string& error) {
    if (ok) return "Done";
    if (cancelled) return "Cancelled: no trace was written";
    return "Failed: " + error;
}

}  // namespace gatescope::widgets
