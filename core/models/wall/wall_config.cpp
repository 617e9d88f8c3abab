#include "core/models/wall/wall_config.h"

#include <fmt/format.h>

#include "core/nn/config_reader.h"
#include "core/nn/model_error.h"

namespace gatescope::core::wall {

namespace {

[[noreturn]] void bad(const ConfigReader& r, const std::string& key, const std::string& what) {
    throwModelError(ErrorKind::Format, what, r.file(), key);
}

}  // namespace

WallConfig parseWallConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    WallConfig c;
    c.vocabSize = r.integer("vocab_size");
    c.hiddenSize = r.integer("hidden_size");
    c.layers = r.integer("num_hidden_layers");
    c.heads = r.integer("num_heads");
    if (c.vocabSize <= 0 || c.hiddenSize <= 0 || c.layers <= 0 || c.heads <= 0)
        bad(r, "num_heads",
            "vocab_size, hidden_size, num_hidden_layers and num_heads must be positive");
    c.kvHeads = r.integer("num_kv_heads", c.heads);
    if (c.kvHeads <= 0 || c.heads % c.kvHeads != 0)
        bad(r, "num_kv_heads",
            fmt::format("num_kv_heads ({}) must divide num_heads ({})", c.kvHeads, c.heads));
    if (r.isNull("head_dim") && c.hiddenSize % c.heads != 0)
        bad(r, "head_dim", "hidden_size must be a multiple of num_heads when head_dim is absent");
    c.headDim = r.integer("head_dim", c.hiddenSize / c.heads);
    if (c.headDim <= 0) bad(r, "head_dim", "head_dim must be positive");
    c.gateDim = r.integer("gate_dim", c.headDim);
    if (c.gateDim < 0 || c.gateDim > c.headDim)
        bad(r, "gate_dim",
            fmt::format("gate_dim {} must lie in [0, head_dim = {}]", c.gateDim, c.headDim));
    c.tieGates = r.boolean("tie_gates", false);
    if (json.contains("gate_soft_clamp") && json["gate_soft_clamp"].is_null()) {
        c.softClamp.reset();
    } else {
        const double g = r.number("gate_soft_clamp", 0.86);
        if (g < 0) bad(r, "gate_soft_clamp", "gate_soft_clamp must be >= 0 (0 or null: none)");
        c.softClamp = g > 0 ? std::optional<double>(g) : std::nullopt;
    }
    c.useRope = r.boolean("use_rope", true);
    c.ropeTheta = r.number("rope_theta", 10000.0);
    if (c.useRope && (c.headDim % 2 != 0 || !(c.ropeTheta > 0)))
        bad(r, c.headDim % 2 ? "head_dim" : "rope_theta",
            "RoPE needs an even head_dim and a positive rope_theta");
    const auto act = r.string("hidden_act", "swish");
    if (act != "swish" && act != "silu")
        throwModelError(ErrorKind::Unsupported,
                        "hidden_act '" + act + "': the Wall MLP is SwiGLU (swish)", file,
                        "hidden_act");
    if (!r.isNull("intermediate_size")) {
        c.intermediateSize = r.integer("intermediate_size");
    } else {
        // fla's rule: a multiple of 256 at or above int(d * ratio * 2 / 3).
        const int raw = static_cast<int>(c.hiddenSize * r.number("hidden_ratio", 4.0) * 2.0 / 3.0);
        c.intermediateSize = 256 * ((raw + 255) / 256);
    }
    if (c.intermediateSize <= 0) bad(r, "intermediate_size", "intermediate_size must be positive");
    c.normEps = r.number("norm_eps", 1e-6);
    c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
    c.bosTokenId = r.integer("bos_token_id", -1);
    return c;
}

}  // namespace gatescope::core::wall
