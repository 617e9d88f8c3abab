#include "engine/models/gsa/gsa_config.h"

#include <fmt/format.h>

#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::gsa {

namespace {

[[noreturn]] void refuse(const ConfigReader& r, const std::string& key, const std::string& what) {
    throwModelError(ErrorKind::Unsupported, what, r.file(), key);
}

FeatureMap parseFeatureMap(const nlohmann::json& json, const ConfigReader& r) {
    // Absent: the config class default. An explicit null reaches the layer as None, which it
    // rejects.
    const bool explicitNull = json.contains("feature_map") && json["feature_map"].is_null();
    const auto name = explicitNull ? std::string("null") : r.string("feature_map", "swish");
    if (name == "swish") return FeatureMap::Swish;
    if (name == "relu") return FeatureMap::Relu;
    if (name == "t2r") return FeatureMap::T2R;
    refuse(r, "feature_map",
           "feature_map '" + name + "' is not one the official GatedSlotAttention accepts " +
               "(swish, relu, t2r)");
}

/// Python's int(hidden * expand): truncation toward zero.
int expandedDim(const ConfigReader& r, const std::string& key, int hidden, int heads) {
    const double expand = r.number(key, 1.0, 0.0, 64.0, true);
    const int dim = static_cast<int>(hidden * expand);
    if (dim <= 0 || dim % heads != 0) {
        throwModelError(ErrorKind::Format,
                        fmt::format("int(hidden_size * {}) = {} must be a positive multiple of "
                                    "num_heads ({})",
                                    key, dim, heads),
                        r.file(), key);
    }
    return dim;
}

}  // namespace

GsaConfig parseGsaConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    GsaConfig c;
    c.vocabSize = r.size("vocab_size");
    c.hiddenSize = r.size("hidden_size");
    c.layers = r.size("num_hidden_layers");
    c.heads = r.size("num_heads");
    c.kvHeads = r.sizeOr("num_kv_heads", c.heads);
    if (c.heads % c.kvHeads != 0) {
        throwModelError(
            ErrorKind::Format,
            fmt::format("num_kv_heads ({}) must divide num_heads ({})", c.kvHeads, c.heads), file,
            "num_kv_heads");
    }
    c.keyDim = expandedDim(r, "expand_k", c.hiddenSize, c.heads);
    c.valueDim = expandedDim(r, "expand_v", c.hiddenSize, c.heads);
    c.headKDim = c.keyDim / c.heads;
    c.headVDim = c.valueDim / c.heads;
    c.slots = r.sizeOr("num_slots", c.headKDim);
    if (json.contains("gate_logit_normalizer") && json["gate_logit_normalizer"].is_null()) {
        refuse(r, "gate_logit_normalizer",
               "null: the official layer divides logsigmoid(f) by it and fails on None");
    }
    c.gateLogitNormalizer = r.number("gate_logit_normalizer", 8.0, 0.0, 1e6, true);
    c.featureMap = parseFeatureMap(json, r);
    c.useShortConv = r.boolean("use_short_conv", false);
    c.convSize = r.integerOr("conv_size", 4, 1, 1024);
    // The layer passes elementwise_affine straight to RMSNorm, where null means no weight.
    c.elementwiseAffine = json.contains("elementwise_affine") && r.isNull("elementwise_affine")
                              ? false
                              : r.boolean("elementwise_affine", true);
    if (c.elementwiseAffine && c.valueDim != c.hiddenSize) {
        // g_norm is built with hidden_size weights but normalizes value_dim features: the official
        // forward fails on such a checkpoint, so there is nothing to match.
        refuse(r, "expand_v",
               fmt::format("value_dim {} != hidden_size {} with elementwise_affine: the official "
                           "g_norm (hidden_size weights) cannot run this configuration",
                           c.valueDim, c.hiddenSize));
    }
    c.normEps = r.number("norm_eps", 1e-6, 0.0, 1.0, true);

    const auto act = r.string("hidden_act", "swish");
    if (act != "swish" && act != "silu") {
        refuse(r, "hidden_act",
               "hidden_act '" + act + "': the official GatedMLP supports only swish");
    }
    if (!r.isNull("attn")) {
        refuse(r, "attn",
               "hybrid checkpoints (standard attention in the layers listed by config.attn) are "
               "not supported; only pure GSA stacks are");
    }
    if (!r.isNull("attnres_block_size")) {
        refuse(r, "attnres_block_size",
               "attention residual blocks (attnres_block_size) change the residual stream; "
               "gatescope implements the plain GSA block only");
    }
    const double ratio = r.number("hidden_ratio", 4.0, 0.0, 1024.0, true);
    if (auto size = r.optionalInteger("intermediate_size", 1, kMaxConfigSize)) {
        c.intermediateSize = *size;
    } else {
        // Official rule: a multiple of 256 at or above int(d * ratio * 2 / 3).
        const int raw = static_cast<int>(c.hiddenSize * ratio * 2.0 / 3.0);
        c.intermediateSize = 256 * ((raw + 255) / 256);
    }
    c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
    c.bosTokenId = r.integerOr("bos_token_id", -1, 0, kMaxConfigSize);
    // Read for type errors only: stored by the official layer but unused in its forward.
    r.optionalNumber("clamp_min", -1e9, 1e9);
    r.optionalNumber("clamp_max", -1e9, 1e9);
    r.boolean("use_output_gate", false);
    r.boolean("use_norm", true);
    r.boolean("norm_first", false);
    // No effect on the forward: fuse_* pick implementations of the same math (fused or plain
    // RMSNorm, SwiGLU, cross entropy), use_l2warp changes the training loss only,
    // max_position_embeddings is not used by pure GSA layers.
    r.accept({"fuse_norm", "fuse_swiglu", "fuse_cross_entropy", "fuse_linear_cross_entropy",
              "use_l2warp", "max_position_embeddings"});
    r.acceptBookkeeping();
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::gsa
