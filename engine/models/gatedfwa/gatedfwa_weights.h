// Private to engine/models/gatedfwa: nanochat GPTGated's state_dict, per layer.
#pragma once

#include <vector>

#include "engine/models/gatedfwa/gatedfwa_config.h"
#include "engine/nn/layers.h"
#include "engine/nn/weight_store.h"

namespace gatescope::core::gatedfwa {

struct GatedFwaLayerWeights {
    Linear q, k, v, proj;   ///< c_q, c_k[.linear], c_v or v_proj.linear, c_proj; no biases
    Linear kShift, vShift;  ///< shift_proj [H_kv, d], no bias (when the shift is on)
    Linear fgate;           ///< fgate_proj [H, d] + bias [H]: the gate pre-activation h
    Linear lambda;          ///< weight_lambda [d, H] stored transposed, so lambda(x) = x @ W
    Linear fc, mlpProj;     ///< mlp.c_fc [4d, d], mlp.c_proj [d, 4d]
};

struct GatedFwaWeights {
    torch::Tensor embeddings;  ///< [V_pad, d]
    std::vector<GatedFwaLayerWeights> layers;
    Linear lmHead;  ///< [V_pad, d]
};

/// Takes every tensor the config implies (names as in nanochat, also under torch.compile's
/// "_orig_mod." prefix) and fails on missing, misshapen or unexpected ones.
GatedFwaWeights loadGatedFwaWeights(const GatedFwaConfig& config, WeightStore& store);

}  // namespace gatescope::core::gatedfwa
