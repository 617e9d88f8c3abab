#include "widgets/view/what_if.h"

#include <fstream>

#include <fmt/format.h>

namespace gatescope::widgets {

namespace {
Error plain(ErrorKind kind, std::string message) {
    return Error{kind, std::move(message), {}, {}};
}

/// `object[key]` when it is an object, else null (manifests come from files).
const nlohmann::json* member(const nlohmann::json& object, const char* key) {
    if (!object.is_object() || !object.contains(key)) return nullptr;
    return &object[key];
}

/// `*value` when it is a string, else `fallback`.
std::string stringOr(const nlohmann::json* value, std::string fallback) {
    return value && value->is_string() ? value->get<std::string>() : std::move(fallback);
}

std::vector<int> intList(const nlohmann::json* list) {
    std::vector<int> out;
    if (list && list->is_array())
        for (const auto& v : *list)
            if (v.is_number_integer()) out.push_back(v.get<int>());
    return out;
}

/// The manifest's dtype, documents and recording options onto `request` (absent keys keep the
/// defaults: a trace of an older gatescope records less).
Status copyRunSettings(const nlohmann::json& m, core::TraceRequest& request) {
    if (const auto* dtypes = member(m, "dtypes");
        dtypes && stringOr(member(*dtypes, "compute"), "") == "bfloat16")
        request.dtype = core::ComputeDType::BFloat16;
    if (const auto* input = member(m, "input_file")) {
        auto split = core::parseDocumentSplit(stringOr(member(*input, "documents"), ""));
        if (!split) return split.error();
        request.documents = *split;
    }
    const auto* rec = member(m, "recording");
    if (!rec) return Ok{};
    request.layers = intList(member(*rec, "layers"));
    request.pyramidHeads = intList(member(*rec, "pyramid_heads"));
    auto flag = [&](const char* key, bool& out) {
        if (const auto* v = member(*rec, key); v && v->is_boolean()) out = v->get<bool>();
    };
    flag("factors", request.storeFactors);
    flag("values", request.storeValues);
    flag("pyramids", request.storePyramids);
    if (const auto* side = member(*rec, "pyramid_finest_side");
        side && side->is_number_integer() && side->get<int64_t>() > 0)
        request.pyramidFinestSide = side->get<int64_t>();
    return Ok{};
}
}  // namespace

std::string whatIfDevice(const nlohmann::json& manifest) {
    return stringOr(member(manifest, "device"), "").rfind("cuda", 0) == 0 ? "cuda" : "cpu";
}

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
    const auto* checkpoint = member(m, "checkpoint");
    const std::string path = checkpoint ? stringOr(member(*checkpoint, "path"), "") : "";
    if (path.empty())
        return plain(ErrorKind::Missing,
                     "This trace does not record which checkpoint made it (its manifest has no "
                     "checkpoint path), so it cannot be run again with a change.");
    if (!std::filesystem::is_directory(path))
        return plain(ErrorKind::Missing,
                     fmt::format("The checkpoint this trace was made from, {}, is not there any "
                                 "more: it cannot be run again with a change.",
                                 path));
    const auto* input = member(m, "input");
    const std::string kind = input ? stringOr(member(*input, "kind"), "text") : "text";
    if (kind != "text")
        return plain(ErrorKind::Unsupported,
                     "This trace was made from token ids, not text: What if... runs the traced "
                     "text again and has none to run (use `gatescope trace --intervene`).");
    if (source.sourceBytes.empty())
        return plain(ErrorKind::Missing,
                     "This trace stores no source text (/tokens/source_bytes), so the input "
                     "cannot be run again.");
    core::TraceRequest request;
    if (auto st = copyRunSettings(m, request); !st) return st.error();
    {
        std::ofstream file(inputFile, std::ios::binary);
        file.write(source.sourceBytes.data(),
                   static_cast<std::streamsize>(source.sourceBytes.size()));
        if (!file)
            return plain(ErrorKind::Io,
                         fmt::format("cannot write the input to {}", inputFile.string()));
    }
    request.modelDir = path;
    request.input.path = inputFile;
    request.input.kind = core::InputKind::Text;
    request.out = out;
    request.interventions = {*intervention};
    request.device = choice.device.empty() ? whatIfDevice(m) : choice.device;
    return request;
}

}  // namespace gatescope::widgets
