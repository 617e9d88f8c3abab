#include "engine/models/fox/fox_config.h"

#include <fmt/format.h>

#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::fox {

namespace {

/// ForgettingTransformerMLP asserts hidden_act in ("swish", "sigmoid"): swiglu_linear or
/// glu_linear.
GateActivation parseMlpActivation(const ConfigReader& r) {
    const auto name = r.string("hidden_act", "swish");
    if (name == "swish") return GateActivation::Silu;
    if (name == "sigmoid") return GateActivation::Sigmoid;
    throwModelError(ErrorKind::Unsupported,
                    "unsupported hidden_act '" + name +
                        "' (the official ForgettingTransformerMLP accepts swish and sigmoid)",
                    r.file(), "hidden_act");
}

/// The official layer checks ogate_act (silu or sigmoid) only when it builds an output gate.
GateActivation parseOutputGateActivation(const ConfigReader& r, bool outputGate) {
    const auto name = r.string("ogate_act", "sigmoid");
    if (name == "silu") return GateActivation::Silu;
    if (name == "sigmoid" || !outputGate) return GateActivation::Sigmoid;
    throwModelError(
        ErrorKind::Unsupported,
        "unsupported ogate_act '" + name + "' (the official output gate accepts silu and sigmoid)",
        r.file(), "ogate_act");
}

ForgetGate parseForgetGate(const ConfigReader& r) {
    const auto name = r.string("fgate_type", "full");
    if (name == "full") return ForgetGate::Full;
    if (name == "bias_only") return ForgetGate::BiasOnly;
    if (name == "fixed") return ForgetGate::Fixed;
    if (name == "none") return ForgetGate::None;
    throwModelError(ErrorKind::Unsupported,
                    "unknown fgate_type '" + name + "' (known: full, bias_only, fixed, none)",
                    r.file(), "fgate_type");
}

}  // namespace

void readSharedKeys(const ConfigReader& r, const nlohmann::json& json, FoxConfig& c) {
    c.vocabSize = r.size("vocab_size");
    c.hiddenSize = r.size("hidden_size");
    c.layers = r.size("num_hidden_layers");
    c.heads = r.size("num_heads");
    if (c.hiddenSize % c.heads != 0) {
        r.fail("num_heads", fmt::format("hidden_size {} is not a multiple of num_heads {}",
                                        c.hiddenSize, c.heads));
    }
    c.kvHeads = c.heads;
    c.headDim = c.hiddenSize / c.heads;
    const double ratio = r.number("hidden_ratio", 4.0, 0.0, 1024.0, true);
    if (auto size = r.optionalInteger("intermediate_size", 1, kMaxConfigSize)) {
        c.intermediateSize = *size;
    } else {
        // Official rule: a multiple of 256 at or above int(d * ratio * 2 / 3).
        const int raw = static_cast<int>(c.hiddenSize * ratio * 2.0 / 3.0);
        c.intermediateSize = 256 * ((raw + 255) / 256);
    }
    c.normEps = r.number("norm_eps", 1e-6, 0.0, 1.0, true);
    c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
    c.ropeBase = r.number("rope_base", 500000.0, 1.0, 1e12);
    // Both classes default to 1 when the key is absent; null means none.
    const int bosDefault = json.contains("bos_token_id") ? -1 : 1;
    c.bosTokenId = r.integerOr("bos_token_id", bosDefault, 0, kMaxConfigSize);
}

FoxConfig parseFoxConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    FoxConfig c;
    readSharedKeys(r, json, c);
    if (auto kv = r.optionalInteger("num_kv_heads", 1, kMaxConfigSize); kv && *kv != c.heads) {
        // The official layer raises NotImplementedError for GQA; no checkpoint uses it.
        throwModelError(ErrorKind::Unsupported,
                        fmt::format("num_kv_heads {} != num_heads {}: grouped-query attention is "
                                    "not supported by the official FoX code",
                                    *kv, c.heads),
                        file, "num_kv_heads");
    }
    c.mlpActivation = parseMlpActivation(r);
    c.useRope = r.boolean("use_rope", false);
    c.useOutputGate = r.boolean("use_output_gate", false);
    c.outputGateActivation = parseOutputGateActivation(r, c.useOutputGate);
    c.useOutputNorm = r.boolean("use_output_norm", false);
    if (c.useOutputGate && c.useOutputNorm && c.outputGateActivation != GateActivation::Sigmoid) {
        throwModelError(ErrorKind::Unsupported,
                        "the official fused output norm + gate supports only ogate_act 'sigmoid'",
                        file, "ogate_act");
    }
    c.forgetGate = parseForgetGate(r);
    c.qkNorm = r.boolean("qk_norm", false);
    c.qkNormShared = r.boolean("qk_norm_share_param_across_head", false);
    c.useKShift = r.boolean("use_k_shift", false);
    c.useVShift = r.boolean("use_v_shift", false);
    // Read by the official code, no effect on its forward: window_size and attention_bias are
    // unused ("Not used. Should be None"), max_position_embeddings only sizes the rotary cache,
    // elementwise_affine / fuse_* pick implementations of the same math, fgate_bias_init and
    // decay_time_* initialize biases the checkpoint stores, log_pruning_tolerance skips key
    // blocks whose weight is below a tolerance (gatescope computes them exactly).
    r.accept({"window_size", "attention_bias", "max_position_embeddings", "elementwise_affine",
              "fuse_norm", "fuse_cross_entropy", "fgate_bias_init", "decay_time_min",
              "decay_time_max", "log_pruning_tolerance"});
    r.acceptBookkeeping();
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::fox
