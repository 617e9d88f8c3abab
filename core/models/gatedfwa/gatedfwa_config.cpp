#include "core/models/gatedfwa/gatedfwa_config.h"

#include <fmt/format.h>

#include "core/nn/config_reader.h"
#include "core/nn/model_error.h"

namespace gatescope::core::gatedfwa {

namespace {

int positive(const ConfigReader& r, const std::string& key, int value) {
    if (value <= 0) {
        throwModelError(ErrorKind::Format, fmt::format("must be positive, got {}", value), r.file(),
                        "model_config." + key);
    }
    return value;
}

}  // namespace

GatedFwaConfig parseGatedFwaConfig(const nlohmann::json& json, const std::string& file) {
    auto it = json.find("model_config");
    if (it == json.end() || !it->is_object()) {
        throwModelError(ErrorKind::Missing,
                        "gated_fwa checkpoints need a \"model_config\" object holding nanochat's "
                        "GPTGatedConfig fields (see ../shared/fixtures/README.md)",
                        file, "model_config");
    }
    ConfigReader r(*it, file);
    GatedFwaConfig c;
    c.sequenceLen = positive(r, "sequence_len", r.integer("sequence_len", 1024));
    c.vocabSize = positive(r, "vocab_size", r.integer("vocab_size"));
    c.paddedVocab = (c.vocabSize + kVocabPadMultiple - 1) / kVocabPadMultiple * kVocabPadMultiple;
    c.layers = positive(r, "n_layer", r.integer("n_layer"));
    c.heads = positive(r, "n_head", r.integer("n_head"));
    c.hiddenSize = positive(r, "n_embd", r.integer("n_embd"));
    if (c.hiddenSize % c.heads != 0) {
        throwModelError(
            ErrorKind::Format,
            fmt::format("n_embd {} is not a multiple of n_head {}", c.hiddenSize, c.heads), file,
            "model_config.n_head");
    }
    c.headDim = c.hiddenSize / c.heads;
    if (c.headDim % 2 != 0) {
        throwModelError(
            ErrorKind::Unsupported,
            fmt::format("head dim {} is odd; the half-split rotary needs it even", c.headDim), file,
            "model_config.n_head");
    }
    c.kvHeads = positive(r, "n_kv_head", r.integer("n_kv_head", c.heads));
    if (c.kvHeads != c.heads) {
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("n_kv_head {} != n_head {}: the official GatedFWA kernel "
                                    "asserts equal head counts (grouped-query attention untested)",
                                    c.kvHeads, c.heads),
                        file, "model_config.n_kv_head");
    }
    if (!r.isNull("window_size")) {
        const int window = r.integer("window_size");
        if (window < 1) {
            throwModelError(ErrorKind::Format,
                            fmt::format("window_size must be >= 1 or null, got {}", window), file,
                            "model_config.window_size");
        }
        c.window = window;
    }
    c.forgetGate = r.boolean("use_forgetting_gate", false);
    c.kShift = r.boolean("use_k_shift", false);
    c.vShift = r.boolean("use_v_shift", false);
    if (!c.forgetGate && c.window == 0) {
        throwModelError(ErrorKind::Unsupported,
                        "neither window_size nor use_forgetting_gate is set: GPTGated has no "
                        "attention path for that (it is nanochat's vanilla GPT, not GatedFWA)",
                        file, "model_config.use_forgetting_gate");
    }
    return c;
}

}  // namespace gatescope::core::gatedfwa
