// Private to engine/models/power: the GPTConfig of Manifest AI's power-attention train/model.py
// (nanoGPT-style "power transformer"), validated.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core::power {

/// Constants of train/model.py that no config key controls.
inline constexpr double kGateBias = 6.906768;      ///< log g = logsigmoid(6.906768 + x): g ~ 0.999
inline constexpr double kLayerNormEpsFp32 = 1e-9;  ///< LayerNorm eps for float32 inputs
inline constexpr double kLayerNormEpsLow = 1e-5;   ///< ... and for bf16/fp16 inputs
inline constexpr double kMlpRatio = 3.5;           ///< c_fc width int(3.5 n_embd), GELU

enum class AttentionKernel { Power, Sdpa };

struct PowerConfig {
    int blockSize = 1024;  ///< training context (informational: the model has no position table)
    int vocabSize = 0;
    int layers = 0;
    int kvHeads = 0;     ///< n_head: key/value heads, one gate per kv head
    int qheadRatio = 1;  ///< query heads per kv head
    int heads = 0;       ///< query heads = qhead_ratio * n_head
    int headDim = 0;     ///< head_size (independent of n_embd)
    int hiddenSize = 0;  ///< n_embd
    int mlpSize = 0;     ///< int(3.5 * n_embd)
    bool bias = true;    ///< biases in every Linear and LayerNorm (not lm_head)
    AttentionKernel kernel = AttentionKernel::Power;
    bool gateColumns = true;       ///< c_attn has n_head gate outputs (not disable_gating)
    bool gating = true;            ///< power kernel and not disable_gating: the gate is used
    int degree = 2;                ///< p
    std::optional<int> chunkSize;  ///< the package's chunked form; same math, recorded only
};

/// Parses config.json of the form {"model_type": "power", "model_config": {GPTConfig fields}}
/// (missing fields take the dataclass defaults). Throws ModelError naming `file` and the key for
/// a missing model_config, non-positive sizes, an odd or non-positive degree (the package asserts
/// deg % 2 == 0), an unknown attention_kernel, or chunk_size < 1.
PowerConfig parsePowerConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::power
