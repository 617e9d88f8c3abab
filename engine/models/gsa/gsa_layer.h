// Private to engine/models/gsa: the GatedSlotAttention token mixer (fla/layers/gsa.py), running the
// chunked two-pass kernel of kernels/cpu/gsa_forward.h and reporting its O(N) factors.
#pragma once

#include "core/model/model.h"
#include "core/model/probe.h"
#include "engine/models/gsa/gsa_config.h"
#include "engine/models/gsa/gsa_weights.h"
#include "engine/nn/layers.h"

namespace gatescope::core::gsa {

/// Tokens per chunk of the CPU kernel (the official chunk kernels also use 64).
inline constexpr int kChunkSize = 64;

/// Runs the layer on `normed` [N, d] (the attention-norm output, in the activation dtype) and
/// returns its contribution to the residual stream, [N, d] float32. When `record` is non-null it
/// receives the attention description, logRetention and the factors documented in
/// kernels/cpu/gsa_tile_source.h. `options` (may be null) carries interventions for `layer`: gate
/// interventions change the slots' decay alpha but not their write weight 1 - alpha, which stays
/// the model's. Throws ModelError on internal size mismatches.
torch::Tensor gsaAttention(const GsaConfig& config, const GsaLayerWeights& weights,
                           const torch::Tensor& normed, const Precision& precision, int threads,
                           LayerRecord* record, const RunOptions* options = nullptr, int layer = 0);

}  // namespace gatescope::core::gsa
