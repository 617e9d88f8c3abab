#include "engine/trace/trace_manifest.h"

#include <vector>

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
    m.inputKind = input.kind == InputKind::Text ? "text" : "ids";
    m.inputFileSha256 = input.sha256;
    if (input.kind == InputKind::Text) {
        // The traced bytes: a --range run traces part of the file.
        m.inputHashed = "source_bytes";
        m.inputSha256 = sha256Hex(input.sourceText.data(), input.sourceText.size());
    } else {
        std::vector<unsigned char> bytes;  // little-endian int64 per id, on any host
        bytes.reserve(input.ids.size() * 8);
        for (int32_t id : input.ids)
            for (int b = 0; b < 8; ++b)
                bytes.push_back(
                    static_cast<unsigned char>(static_cast<uint64_t>(int64_t{id}) >> (8 * b)));
        m.inputHashed = "ids_int64le";
        m.inputSha256 = sha256Hex(bytes.data(), bytes.size());
    }
    m.gatescopeVersion = gatescopeVersion();
    m.gitRevision = gatescopeGitRevision();
    m.device = device;
    m.dtypes = {{"weights", "float32"},
                {"compute", std::string(toString(request.dtype))},
                {"factors", request.writer.factorsAsF16 ? "float16"
                            // A bf16 forward on the GPU hands q, k, v over in bf16
                            // (device_pipeline); lse and log_* stay float32.
                            : request.dtype == ComputeDType::BFloat16 &&
                                    request.writer.bf16Factors && device.rfind("cuda", 0) == 0
                                ? "bfloat16"
                                : "float32"}};
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
