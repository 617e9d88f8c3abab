#include "engine/models/gatedfwa/gatedfwa_config.h"

#include <fmt/format.h>

#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::gatedfwa {

GatedFwaConfig parseGatedFwaConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r = ConfigReader::nestedModelConfig(json, file, "gated_fwa",
                                                     "nanochat's GPTGatedConfig fields");
    GatedFwaConfig c;
    c.sequenceLen = r.sizeOr("sequence_len", 1024);
    c.vocabSize = r.size("vocab_size");
    c.paddedVocab = (c.vocabSize + kVocabPadMultiple - 1) / kVocabPadMultiple * kVocabPadMultiple;
    c.layers = r.size("n_layer");
    c.heads = r.size("n_head");
    c.hiddenSize = r.size("n_embd");
    if (c.hiddenSize % c.heads != 0) {
        throwModelError(
            ErrorKind::Format,
            fmt::format("n_embd {} is not a multiple of n_head {}", c.hiddenSize, c.heads), file,
            r.keyName("n_head"));
    }
    c.headDim = c.hiddenSize / c.heads;
    if (c.headDim % 2 != 0) {
        throwModelError(
            ErrorKind::Unsupported,
            fmt::format("head dim {} is odd; the half-split rotary needs it even", c.headDim), file,
            r.keyName("n_head"));
    }
    c.kvHeads = r.sizeOr("n_kv_head", c.heads);
    if (c.kvHeads != c.heads) {
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("n_kv_head {} != n_head {}: the official GatedFWA kernel "
                                    "asserts equal head counts (grouped-query attention untested)",
                                    c.kvHeads, c.heads),
                        file, r.keyName("n_kv_head"));
    }
    c.window = r.integerOr("window_size", 0, 1, kMaxConfigSize);
    c.forgetGate = r.boolean("use_forgetting_gate", false);
    c.kShift = r.boolean("use_k_shift", false);
    c.vShift = r.boolean("use_v_shift", false);
    if (!c.forgetGate && c.window == 0) {
        throwModelError(ErrorKind::Unsupported,
                        "neither window_size nor use_forgetting_gate is set: GPTGated has no "
                        "attention path for that (it is nanochat's vanilla GPT, not GatedFWA)",
                        file, r.keyName("use_forgetting_gate"));
    }
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::gatedfwa
