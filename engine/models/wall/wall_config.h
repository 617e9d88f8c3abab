// Private to engine/models/wall: the `model_type: "wall"` config.json gatescope defines (no Wall
// checkpoints are published; docs/wall-checkpoint-format.md is the contract), validated.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core::wall {

struct WallConfig {
    int vocabSize = 0;
    int hiddenSize = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;  ///< num_kv_heads (default num_heads); query head h reads kv head h / group
    int headDim = 0;  ///< head_dim (default hidden_size / num_heads)
    int gateDim = 0;  ///< gate_dim: leading gated channels per head, 0..head_dim (subdim gating)
    bool tieGates = false;  ///< tie_gates: one gate vector per KV head, shared by its query group
    std::optional<double> softClamp = 0.86;  ///< gate_soft_clamp g_max; null or 0: no clamp
    int64_t window = 0;  ///< window_size: query i sees keys i - w < j <= i; 0 (null): all
    /// use_sink_bias: a learned sink logit per query head (attn.sink_bias)
    bool sinkBias = false;
    /// use_scalar_gate: a FoX-style scalar gate per query head (attn.f_proj)
    bool scalarGate = false;
    bool useRope = true;
    double ropeTheta = 10000.0;
    int intermediateSize = 0;  ///< after fla's hidden_ratio rounding rule when not given
    double normEps = 1e-6;
    bool tieWordEmbeddings = false;
    int bosTokenId = -1;

    int group() const { return heads / kvHeads; }
    int gateHeads() const { return tieGates ? kvHeads : heads; }
};

/// Parses and validates config.json. Throws ModelError naming `file` and the key: a key no
/// accessor reads (ConfigReader::rejectUnknownKeys), missing or non-positive sizes, num_kv_heads
/// not dividing num_heads, gate_dim outside [0, head_dim], an odd head_dim with RoPE, a negative
/// soft clamp, a window_size below 1, a non-boolean use_sink_bias or use_scalar_gate, hidden_act
/// other than swish/silu.
WallConfig parseWallConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::wall
