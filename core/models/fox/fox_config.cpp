#include "core/models/fox/fox_config.h"

#include "core/nn/config_reader.h"
#include "core/nn/model_error.h"

namespace gatescope::core::fox {

namespace {

GateActivation parseActivation(const ConfigReader& r, const std::string& key,
                               const std::string& fallback) {
    const auto name = r.string(key, fallback);
    if (name == "swish" || name == "silu") return GateActivation::Silu;
    if (name == "sigmoid") return GateActivation::Sigmoid;
    throwModelError(ErrorKind::Unsupported, "unsupported activation '" + name + "'", r.file(), key);
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

FoxConfig parseFoxConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    FoxConfig c;
    c.vocabSize = r.integer("vocab_size");
    c.hiddenSize = r.integer("hidden_size");
    c.layers = r.integer("num_hidden_layers");
    c.heads = r.integer("num_heads");
    if (c.heads <= 0 || c.hiddenSize % c.heads != 0) {
        throwModelError(ErrorKind::Format, "hidden_size must be a multiple of num_heads", file,
                        "num_heads");
    }
    c.headDim = c.hiddenSize / c.heads;
    if (!r.isNull("num_kv_heads") && r.integer("num_kv_heads") != c.heads) {
        // The official layer raises NotImplementedError for GQA; no checkpoint uses it.
        throwModelError(ErrorKind::Unsupported,
                        "grouped-query attention is not supported by the official FoX code", file,
                        "num_kv_heads");
    }
    const double ratio = r.number("hidden_ratio", 4.0);
    if (!r.isNull("intermediate_size")) {
        c.intermediateSize = r.integer("intermediate_size");
    } else {
        // Official rule: a multiple of 256 at or above int(d * ratio * 2 / 3).
        const int raw = static_cast<int>(c.hiddenSize * ratio * 2.0 / 3.0);
        c.intermediateSize = 256 * ((raw + 255) / 256);
    }
    c.mlpActivation = parseActivation(r, "hidden_act", "swish");
    c.normEps = r.number("norm_eps", 1e-6);
    c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
    c.useRope = r.boolean("use_rope", false);
    c.ropeBase = r.number("rope_base", 500000.0);
    c.useOutputGate = r.boolean("use_output_gate", false);
    c.outputGateActivation = parseActivation(r, "ogate_act", "sigmoid");
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
    c.bosTokenId = r.integer("bos_token_id", -1);
    return c;
}

}  // namespace gatescope::core::fox
