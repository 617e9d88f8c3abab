#include "widgets/view/what_if.h"

#include <fstream>

#include <fmt/format.h>

namespace gatescope::widgets {

namespace {
Error plain(ErrorKind kind, std::string message) {
    return Error{kind, std::move(message), {}, {}};
}
}  // namespace

std::string interventionText(const WhatIfChoice& c) {
    std::string what;
    switch (c.change) {
        case WhatIfChange::ForgettingOff:
            what = "gate=1";
            break;
        case WhatIfChange::Constant:
            what = fmt::format("gate={}", c.value);
            break;
        case WhatIfChange::ScaleLog:
            what = fmt::format("log_gate*{}", c.value);
            break;
        case WhatIfChange::Clamp:
            what = fmt::format("gate=clamp({},{})", c.low, c.high);
            break;
        case WhatIfChange::Ablate:
            what = "ablate";
            break;
    }
    std::string where = fmt::format("@layers={};heads={}", c.layer, c.head);
    if (c.channel && c.change != WhatIfChange::Ablate)
        where += fmt::format(";channels={}", *c.channel);
    return what + where;
}

Result<core::TraceRequest> whatIfRequest(const WhatIfSource& source, const WhatIfChoice& choice,
                                         const std::filesystem::path& inputFile,
                                         const std::filesystem::path& out) {
    auto intervention = core::parseIntervention(interventionText(choice));
    if (!intervention) return intervention.error();
    const nlohmann::json& m = source.manifest;
    const nlohmann::json* checkpoint =
        m.contains("checkpoint") && m["checkpoint"].is_object() ? &m["checkpoint"] : nullptr;
    const std::string path =
        checkpoint && checkpoint->contains("path") && (*checkpoint)["path"].is_string()
            ? (*checkpoint)["path"].get<std::string>()
            : std::string();
    if (path.empty())
        return plain(ErrorKind::Missing,
                     "This trace does not record which checkpoint made it (its manifest has no "
                     "checkpoint path), so it cannot be run again with a change.");
    if (!std::filesystem::is_directory(path))
        return plain(ErrorKind::Missing,
                     fmt::format("The checkpoint this trace was made from, {}, is not there any "
                                 "more: it cannot be run again with a change.",
                                 path));
    const std::string kind =
        m.contains("input") && m["input"].is_object() && m["input"].contains("kind")
            ? m["input"]["kind"].get<std::string>()
            : "text";
    if (kind != "text")
        return plain(ErrorKind::Unsupported,
                     "This trace was made from token ids, not text: What if... runs the traced "
                     "text again and has none to run (use `gatescope trace --intervene`).");
    if (source.sourceBytes.empty())
        return plain(ErrorKind::Missing,
                     "This trace stores no source text (/tokens/source_bytes), so the input "
                     "cannot be run again.");
    {
        std::ofstream file(inputFile, std::ios::binary);
        file.write(source.sourceBytes.data(),
                   static_cast<std::streamsize>(source.sourceBytes.size()));
        if (!file)
            return plain(ErrorKind::Io,
                         fmt::format("cannot write the input to {}", inputFile.string()));
    }
    core::TraceRequest request;
    request.modelDir = path;
    request.input.path = inputFile;
    request.input.kind = core::InputKind::Text;
    request.out = out;
    request.interventions = {*intervention};
    return request;
}

}  // namespace gatescope::widgets
