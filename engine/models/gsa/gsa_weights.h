// Private to engine/models/gsa: the official fla GSAForCausalLM state_dict, per layer. Both the
// current names and the paper-era ones (see loadFlaBlock) load into the same structure.
#pragma once

#include <vector>

#include "engine/models/gsa/gsa_config.h"
#include "engine/nn/fla_stack.h"
#include "engine/nn/layers.h"
#include "engine/nn/weight_store.h"

namespace gatescope::core::gsa {

/// A depthwise causal Conv1d (fla ShortConvolution, SiLU activation). weight [C, K].
struct ShortConv {
    torch::Tensor weight;  ///< [C, K] float32 (the checkpoint's [C, 1, K])
    torch::Tensor bias;    ///< [C] or undefined
};

/// The token mixer's weights; norms and MLP live in the FlaStack's blocks.
struct GsaLayerWeights {
    Linear q, k, v, f, o;           ///< q [keyDim, d], k/v [kvHeads * head dim, d],
                                    ///< f [kvHeads * slots, d], o [d, valueDim]
    ShortConv qConv, kConv, vConv;  ///< only with use_short_conv
    Linear featureMap;              ///< t2r: [headKDim, headKDim] (+ optional bias)
    torch::Tensor gNorm;            ///< [valueDim] or undefined (elementwise_affine false)
};

struct GsaWeights {
    FlaStack stack;
    std::vector<GsaLayerWeights> layers;
};

/// Takes every tensor the config implies and fails (ModelError) on missing, misshapen or
/// unexpected ones, naming the checkpoint file and tensor.
GsaWeights loadGsaWeights(const GsaConfig& config, WeightStore& store);

}  // namespace gatescope::core::gsa
