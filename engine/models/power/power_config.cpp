#include "engine/models/power/power_config.h"

#include <fmt/format.h>

#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::power {

namespace {

AttentionKernel parseKernel(const ConfigReader& r) {
    // GPTConfig's default is 'sdpa'; train.py always saves the field.
    const auto name = r.string("attention_kernel", "sdpa");
    if (name == "power") return AttentionKernel::Power;
    if (name == "sdpa") return AttentionKernel::Sdpa;
    throwModelError(ErrorKind::Unsupported,
                    fmt::format("unknown attention_kernel '{}' (train/model.py knows 'power' and "
                                "'sdpa')",
                                name),
                    r.file(), r.keyName("attention_kernel"));
}

}  // namespace

PowerConfig parsePowerConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r =
        ConfigReader::nestedModelConfig(json, file, "power", "train/model.py's GPTConfig fields");
    PowerConfig c;
    c.blockSize = r.sizeOr("block_size", 1024);
    c.vocabSize = r.size("vocab_size");
    c.layers = r.size("n_layer");
    c.kvHeads = r.size("n_head");
    c.hiddenSize = r.size("n_embd");
    c.headDim = r.integerOr("head_size", 64, 1, 4096);
    if (c.headDim % 2 != 0) {
        throwModelError(
            ErrorKind::Unsupported,
            fmt::format("head_size {} is odd; the model's rotary rotates pairs", c.headDim), file,
            r.keyName("head_size"));
    }
    c.qheadRatio = r.integerOr("qhead_ratio", 1, 1, 1024);
    if (int64_t{c.qheadRatio} * c.kvHeads > 65536) {
        r.fail("qhead_ratio", fmt::format("qhead_ratio {} x n_head {} query heads is more than "
                                          "65536",
                                          c.qheadRatio, c.kvHeads));
    }
    c.heads = c.qheadRatio * c.kvHeads;
    c.mlpSize = static_cast<int>(kMlpRatio * c.hiddenSize);
    c.bias = r.boolean("bias", true);
    c.kernel = parseKernel(r);
    // CausalSelfAttention sizes c_attn with the n_head gate columns whenever disable_gating is
    // false, also for 'sdpa' (GPTConfig's default kernel), which only warns that it ignores them.
    c.gateColumns = !r.boolean("disable_gating", false);
    c.gating = c.kernel == AttentionKernel::Power && c.gateColumns;
    // The attention form's cost does not depend on p, but p log|s| overflows float32 for p
    // beyond a few hundred; the paper and every released model use p = 2.
    c.degree = r.integerOr("degree", 2, 1, 64);
    if (c.kernel == AttentionKernel::Power && c.degree % 2 != 0) {
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("degree {} is not a positive even integer (power_full asserts "
                                    "deg % 2 == 0)",
                                    c.degree),
                        file, r.keyName("degree"));
    }
    c.chunkSize = r.optionalInteger("chunk_size", 1, kMaxConfigSize);
    if (c.chunkSize && c.qheadRatio > 1) {
        // power_full's chunked path repeats the state S for the query heads but not the
        // normalizer state s: its query_state kernel then reads query head i's s at flat head
        // index i of a tensor holding n_head heads per chunk (another head, or the next chunk's),
        // so the official numbers are not the model's math. chunk_size null is the attention
        // form, the math the chunked form computes for every other configuration.
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("chunk_size {} with qhead_ratio {}: the official chunked "
                                    "power_full does not repeat its normalizer state for grouped "
                                    "query heads, so its outputs are not the model's attention; "
                                    "set chunk_size to null to trace the attention form",
                                    *c.chunkSize, c.qheadRatio),
                        file, r.keyName("chunk_size"));
    }
    if (!r.isNull("window_size")) {
        // Later train.py versions carry window_size; the model code of the paper's era has no
        // windowed path, so its meaning is unknown here.
        throwModelError(ErrorKind::Unsupported,
                        "window_size is set; windowed attention is not part of the supported "
                        "train/model.py (3bd1a80)",
                        file, r.keyName("window_size"));
    }
    // dropout is off at inference; log_space is stored by the attention module and never used.
    r.number("dropout", 0.0, 0.0, 1.0);
    r.boolean("log_space", false);
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::power
