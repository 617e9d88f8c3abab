#include "core/models/power/power_config.h"

#include <fmt/format.h>

#include "core/nn/config_reader.h"
#include "core/nn/model_error.h"

namespace gatescope::core::power {

namespace {

int positive(const ConfigReader& r, const std::string& key, int value) {
    if (value <= 0) {
        throwModelError(ErrorKind::Format, fmt::format("must be positive, got {}", value), r.file(),
                        "model_config." + key);
    }
    return value;
}

AttentionKernel parseKernel(const ConfigReader& r) {
    // GPTConfig's default is 'sdpa'; train.py always saves the field.
    const auto name = r.string("attention_kernel", "sdpa");
    if (name == "power") return AttentionKernel::Power;
    if (name == "sdpa") return AttentionKernel::Sdpa;
    throwModelError(ErrorKind::Unsupported,
                    fmt::format("unknown attention_kernel '{}' (train/model.py knows 'power' and "
                                "'sdpa')",
                                name),
                    r.file(), "model_config.attention_kernel");
}

}  // namespace

PowerConfig parsePowerConfig(const nlohmann::json& json, const std::string& file) {
    auto it = json.find("model_config");
    if (it == json.end() || !it->is_object()) {
        throwModelError(ErrorKind::Missing,
                        "power checkpoints need a \"model_config\" object holding train/model.py's "
                        "GPTConfig fields (see ../shared/fixtures/README.md)",
                        file, "model_config");
    }
    ConfigReader r(*it, file);
    PowerConfig c;
    c.blockSize = positive(r, "block_size", r.integer("block_size", 1024));
    c.vocabSize = positive(r, "vocab_size", r.integer("vocab_size"));
    c.layers = positive(r, "n_layer", r.integer("n_layer"));
    c.kvHeads = positive(r, "n_head", r.integer("n_head"));
    c.hiddenSize = positive(r, "n_embd", r.integer("n_embd"));
    c.headDim = positive(r, "head_size", r.integer("head_size", 64));
    if (c.headDim % 2 != 0) {
        throwModelError(
            ErrorKind::Unsupported,
            fmt::format("head_size {} is odd; the model's rotary rotates pairs", c.headDim), file,
            "model_config.head_size");
    }
    c.qheadRatio = positive(r, "qhead_ratio", r.integer("qhead_ratio", 1));
    c.heads = c.qheadRatio * c.kvHeads;
    c.mlpSize = static_cast<int>(kMlpRatio * c.hiddenSize);
    c.bias = r.boolean("bias", true);
    c.kernel = parseKernel(r);
    c.gating = c.kernel == AttentionKernel::Power && !r.boolean("disable_gating", false);
    c.degree = r.integer("degree", 2);
    if (c.kernel == AttentionKernel::Power && (c.degree <= 0 || c.degree % 2 != 0)) {
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("degree {} is not a positive even integer (power_full asserts "
                                    "deg % 2 == 0)",
                                    c.degree),
                        file, "model_config.degree");
    }
    if (!r.isNull("chunk_size")) {
        c.chunkSize = positive(r, "chunk_size", r.integer("chunk_size"));
    }
    if (!r.isNull("window_size")) {
        // Later train.py versions carry window_size; the model code of the paper's era has no
        // windowed path, so its meaning is unknown here.
        throwModelError(ErrorKind::Unsupported,
                        "window_size is set; windowed attention is not part of the supported "
                        "train/model.py (3bd1a80)",
                        file, "model_config.window_size");
    }
    return c;
}

}  // namespace gatescope::core::power
