// Private to engine/models/gsa: the official fla GSAConfig (model_type "gsa"), validated.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core::gsa {

/// fla `feature_map` applied to q and k: swish (x sigmoid x), relu, or t2r (relu of a learned
/// [head_k_dim, head_k_dim] linear map shared by q and k).
enum class FeatureMap { Swish, Relu, T2R };

struct GsaConfig {
    int vocabSize = 0;
    int hiddenSize = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;   ///< num_kv_heads (null: num_heads); query head h reads kv head h / group
    int slots = 0;     ///< num_slots (null: head_k_dim, as the layer does)
    int keyDim = 0;    ///< int(hidden_size * expand_k)
    int valueDim = 0;  ///< int(hidden_size * expand_v)
    int headKDim = 0;  ///< keyDim / heads
    int headVDim = 0;  ///< valueDim / heads
    int intermediateSize = 0;          ///< after the official hidden_ratio rounding rule
    double gateLogitNormalizer = 8.0;  ///< log alpha = logsigmoid(f) / this
    FeatureMap featureMap = FeatureMap::Swish;
    bool useShortConv = false;
    int convSize = 4;
    bool elementwiseAffine = true;  ///< g_norm has a weight
    double normEps = 1e-6;
    bool tieWordEmbeddings = false;
    int bosTokenId = -1;

    int group() const { return heads / kvHeads; }
};

/// Parses and validates config.json. Throws ModelError naming `file` and the key for options the
/// official model cannot run or that we refuse (hybrid `attn` layers, unknown feature_map or
/// hidden_act, num_kv_heads not dividing num_heads, key/value dims not divisible by the heads,
/// expand_v != 1 with an affine g_norm, non-positive gate_logit_normalizer). clamp_min,
/// clamp_max, use_output_gate, use_norm and norm_first are accepted: the official
/// GatedSlotAttention stores or ignores them without changing the math (norm_first only renames
/// weights).
GsaConfig parseGsaConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::gsa
