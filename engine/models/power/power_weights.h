// Private to engine/models/power: train/model.py's state_dict (nanoGPT names), per layer.
#pragma once

#include <vector>

#include "engine/models/power/power_config.h"
#include "engine/nn/layers.h"
#include "engine/nn/weight_store.h"

namespace gatescope::core::power {

struct PowerLayerWeights {
    torch::Tensor ln1Weight, ln1Bias, ln2Weight, ln2Bias;  ///< biases undefined when bias=false
    Linear qkvg;     ///< c_attn: [hq*d | h*d | h*d | h gate logits] x n_embd
    Linear attnOut;  ///< attn.c_proj: n_embd x hq*d
    Linear fc;       ///< mlp.c_fc: int(3.5 n_embd) x n_embd
    Linear mlpOut;   ///< mlp.c_proj
};

struct PowerWeights {
    torch::Tensor embeddings;  ///< transformer.wte [V, n_embd]; lm_head shares it
    std::vector<PowerLayerWeights> layers;
    torch::Tensor lnFWeight, lnFBias;
    Linear lmHead;  ///< no bias
};

/// Takes every tensor the config implies and fails on missing, misshapen or unexpected ones.
/// lm_head.weight may be absent (tied); when present it must equal transformer.wte.weight, since
/// train/model.py ties them.
PowerWeights loadPowerWeights(const PowerConfig& config, WeightStore& store);

}  // namespace gatescope::core::power
