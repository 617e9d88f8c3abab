// Private to core/models/gsa: the official fla GSAForCausalLM state_dict, per layer. Both the
// current names and the paper-era ones (FLA before Feb 2025: `attn.norm` / `mlp.norm` instead of
// `attn_norm` / `mlp_norm`, and one fused `mlp.gate_proj` [2I, d] instead of gate_proj + up_proj)
// load into the same structure.
#pragma once

#include <vector>

#include "core/models/gsa/gsa_config.h"
#include "core/nn/layers.h"
#include "core/nn/weight_store.h"

namespace gatescope::core::gsa {

/// A depthwise causal Conv1d (fla ShortConvolution, SiLU activation). weight [C, K].
struct ShortConv {
    torch::Tensor weight;  ///< [C, K] float32 (the checkpoint's [C, 1, K])
    torch::Tensor bias;    ///< [C] or undefined
};

struct GsaLayerWeights {
    torch::Tensor attnNorm, mlpNorm;  ///< [d]
    Linear q, k, v, f, o;             ///< q [keyDim, d], k/v [kvHeads * head dim, d],
                                      ///< f [kvHeads * slots, d], o [d, valueDim]
    ShortConv qConv, kConv, vConv;    ///< only with use_short_conv
    Linear featureMap;                ///< t2r: [headKDim, headKDim] (+ optional bias)
    torch::Tensor gNorm;              ///< [valueDim] or undefined (elementwise_affine false)
    Linear gate, up, down;            ///< gate/up [I, d], down [d, I]
};

struct GsaWeights {
    torch::Tensor embeddings;  ///< [V, d]
    std::vector<GsaLayerWeights> layers;
    torch::Tensor finalNorm;
    Linear lmHead;
};

/// Takes every tensor the config implies and fails (ModelError) on missing, misshapen or
/// unexpected ones, naming the checkpoint file and tensor.
GsaWeights loadGsaWeights(const GsaConfig& config, WeightStore& store);

}  // namespace gatescope::core::gsa
