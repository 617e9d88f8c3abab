// Private to engine/models/gatedfwa: nanochat's GPTGatedConfig (the public GatedFWA code),
// validated.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core::gatedfwa {

/// Constants of nanochat/gpt_gated.py that no config key controls.
inline constexpr double kLogitSoftcap = 15.0;   ///< inference logits: 15 tanh(raw / 15)
inline constexpr double kGateEpsilon = 1e-3;    ///< log gate = logsigmoid(beta h) / (beta + eps)
inline constexpr double kRopeBase = 10000.0;    ///< half-split rotary, cos/sin rounded to bf16
inline constexpr int kVocabPadMultiple = 64;    ///< wte / lm_head rows are padded to this
inline constexpr int kRotaryLengthFactor = 10;  ///< tables cover 10 x sequence_len positions

struct GatedFwaConfig {
    int sequenceLen = 1024;
    int vocabSize = 0;    ///< logits past this index (vocab padding) are dropped
    int paddedVocab = 0;  ///< rows of wte and lm_head
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int hiddenSize = 0;
    int headDim = 0;
    int64_t window = 0;  ///< keys i - window + 1 .. i; 0 = full causal (window_size null)
    bool forgetGate = false;
    bool kShift = false;
    bool vShift = false;
};

/// Parses config.json of the form {"model_type": "gated_fwa", "model_config": {GPTGatedConfig
/// fields}} (missing booleans take the dataclass defaults). Throws ModelError naming `file` and
/// the key for a missing model_config, bad sizes, grouped-query attention (the official kernel
/// asserts n_kv_head == n_head), window_size < 1, and a config with neither window nor gate
/// (the official forward has no attention path for it).
GatedFwaConfig parseGatedFwaConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::gatedfwa
