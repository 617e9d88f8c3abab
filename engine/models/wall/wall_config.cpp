#include "engine/models/wall/wall_config.h"

#include <fmt/format.h>

#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::wall {

namespace {

[[noreturn]] void bad(const ConfigReader& r, const std::string& key, const std::string& what) {
    throwModelError(ErrorKind::Format, what, r.file(), key);
}

}  // namespace

WallConfig parseWallConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    WallConfig c;
    c.vocabSize = r.size("vocab_size");
    c.hiddenSize = r.size("hidden_size");
    c.layers = r.size("num_hidden_layers");
    c.heads = r.size("num_heads");
    c.kvHeads = r.sizeOr("num_kv_heads", c.heads);
    if (c.heads % c.kvHeads != 0)
        bad(r, "num_kv_heads",
            fmt::format("num_kv_heads ({}) must divide num_heads ({})", c.kvHeads, c.heads));
    if (r.isNull("head_dim") && c.hiddenSize % c.heads != 0)
        bad(r, "head_dim", "hidden_size must be a multiple of num_heads when head_dim is absent");
    c.headDim = r.integerOr("head_dim", c.hiddenSize / c.heads, 1, 4096);
    if (c.headDim <= 0) bad(r, "head_dim", "hidden_size / num_heads is 0");
    c.gateDim = r.integerOr("gate_dim", c.headDim, 0, c.headDim);
    c.tieGates = r.boolean("tie_gates", false);
    if (json.contains("gate_soft_clamp") && r.isNull("gate_soft_clamp")) {
        c.softClamp.reset();
    } else {
        const double g = r.number("gate_soft_clamp", 0.86, 0.0, 1e6);
        c.softClamp = g > 0 ? std::optional<double>(g) : std::nullopt;
    }
    // window_size w: query i sees keys i - w < j <= i; absent or null: full causal attention.
    c.window = r.integerOr("window_size", 0, 1, kMaxConfigSize);
    c.sinkBias = r.boolean("use_sink_bias", false);
    c.scalarGate = r.boolean("use_scalar_gate", false);
    c.useRope = r.boolean("use_rope", true);
    c.ropeTheta = r.number("rope_theta", 10000.0, 1.0, 1e12);
    if (c.useRope && c.headDim % 2 != 0) bad(r, "head_dim", "RoPE needs an even head_dim");
    const auto act = r.string("hidden_act", "swish");
    if (act != "swish" && act != "silu")
        throwModelError(ErrorKind::Unsupported,
                        "hidden_act '" + act + "': the Wall MLP is SwiGLU (swish)", file,
                        "hidden_act");
    const double ratio = r.number("hidden_ratio", 4.0, 0.0, 1024.0, true);
    if (auto size = r.optionalInteger("intermediate_size", 1, kMaxConfigSize)) {
        c.intermediateSize = *size;
    } else {
        // fla's rule: a multiple of 256 at or above int(d * ratio * 2 / 3).
        const int raw = static_cast<int>(c.hiddenSize * ratio * 2.0 / 3.0);
        c.intermediateSize = 256 * ((raw + 255) / 256);
    }
    c.normEps = r.number("norm_eps", 1e-6, 0.0, 1.0, true);
    c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
    c.bosTokenId = r.integerOr("bos_token_id", -1, 0, kMaxConfigSize);
    // gate_bias_init: the [low, high] range `gatescope train` initializes gate biases from
    // (training only; the checkpoint holds the biases).
    if (!r.isNull("gate_bias_init")) {
        const auto& range = json["gate_bias_init"];
        if (!range.is_array() || range.size() != 2 || !range[0].is_number() ||
            !range[1].is_number())
            bad(r, "gate_bias_init", "expected two numbers [low, high], got " + range.dump());
    }
    r.accept({"fuse_norm", "fuse_swiglu", "fuse_cross_entropy", "max_position_embeddings"});
    r.acceptBookkeeping();
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::wall
