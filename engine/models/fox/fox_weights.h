// Private to engine/models/fox: the official state_dict, per layer.
#pragma once

#include <vector>

#include "engine/models/fox/fox_config.h"
#include "engine/nn/layers.h"
#include "engine/nn/weight_store.h"

namespace gatescope::core::fox {

struct FoxLayerWeights {
    torch::Tensor attnNorm, mlpNorm;
    Linear q, k, v, o;         ///< k, v: [kvHeads * headDim, d]
    Linear kShift, vShift;     ///< shift_proj: [H, d], no bias
    Linear forgetGate;         ///< fgate_proj [H, d] with bias (fgate_type full)
    torch::Tensor forgetBias;  ///< fgate_bias [H] (bias_only, fixed)
    Linear outputGate;
    torch::Tensor outputNorm;
    torch::Tensor qNorm, kNorm;  ///< [D] shared or [H*D] per head
    Linear gateUp, down;         ///< gate_proj [2I, d] (gate rows first), down_proj [d, I]
};

struct FoxWeights {
    torch::Tensor embeddings;  ///< [V, d]
    std::vector<FoxLayerWeights> layers;
    torch::Tensor finalNorm;
    Linear lmHead;
};

/// Takes every tensor the config implies and fails on missing, misshapen or unexpected ones.
FoxWeights loadFoxWeights(const FoxConfig& config, WeightStore& store);

}  // namespace gatescope::core::fox
