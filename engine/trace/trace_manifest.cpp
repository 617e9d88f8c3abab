#include "engine/trace/trace_manifest.h"

#include "core/build_info.h"
#include "data/trace/manifest.h"

namespace gatescope::core {

nlohmann::json buildTraceManifest(const Checkpoint& checkpoint,
                                  const std::vector<std::string>& weightSha256,
                                  const Tokenizer* tokenizer, const TraceRequest& request,
                                  const InputTokens& input, const std::string& attentionPath,
                                  const std::string& device) {
    data::Manifest m;
    m.checkpointPath = std::filesystem::absolute(checkpoint.dir()).string();
    const auto files = checkpoint.weightFiles();
    for (std::size_t i = 0; i < files.size(); ++i) {
        m.weightSha256[files[i].filename().string()] = weightSha256[i];
    }
    m.modelType = checkpoint.modelType();
    m.modelConfig = checkpoint.config();
    m.tokenizer = tokenizer ? tokenizer->identity() : nlohmann::json{{"kind", "none"}};
    m.inputSha256 = input.sha256;
    m.inputKind = input.kind == InputKind::Text ? "text" : "ids";
    m.gatescopeVersion = gatescopeVersion();
    m.gitRevision = gatescopeGitRevision();
    m.device = device;
    m.dtypes = {{"weights", "float32"},
                {"compute", std::string(toString(request.dtype))},
                {"factors", request.writer.factorsAsF16 ? "float16" : "float32"}};
    m.attentionPath = attentionPath;
    m.extra["input_file"] = {
        {"path", std::filesystem::absolute(request.input.path).string()},
        {"format", toString(input.kind)},
        {"range", {input.rangeBegin, input.rangeBegin + int64_t(input.ids.size())}},
        {"total_tokens", input.totalTokens},
        {"source_text_offset", input.sourceTextOffset},
        {"documents", request.documents.text.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(request.documents.text)}};
    m.extra["recording"] = {
        {"layers", request.layers},          {"pyramid_heads", request.pyramidHeads},
        {"factors", request.storeFactors},   {"values", request.storeValues},
        {"pyramids", request.storePyramids}, {"pyramid_finest_side", request.pyramidFinestSide}};
    // What was changed in the forward (docs/interventions.md); absent when nothing was.
    if (!request.interventions.empty()) m.extra["interventions"] = toJson(request.interventions);
    return m.toJson();
}

}  // namespace gatescope::core
