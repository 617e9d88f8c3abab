// Private to engine/models/gatedfwa: the GatedFWA memory gate as the public nanochat code computes
// it.
#pragma once

#include "engine/models/gatedfwa/gatedfwa_weights.h"

namespace gatescope::core::gatedfwa {

/// One layer's gate series, each [H, N] float32.
struct MemoryGate {
    torch::Tensor logit;    ///< h = fgate_proj(x) (the code's sign: positive remembers)
    torch::Tensor lambda;   ///< beta = 1 + elu(x @ weight_lambda), the temperature
    torch::Tensor logGate;  ///< log lambda_t = logsigmoid(beta h) / (beta + 1e-3) = -alpha_t <= 0
};

/// `x` is the attention input [N, d] (after the block's RMSNorm). Under bf16 every elementwise step
/// rounds to bf16 as it does under CUDA autocast; the result is widened to float32, as the
/// official code hands the kernel a float32 log gate.
MemoryGate memoryGate(const GatedFwaLayerWeights& weights, const torch::Tensor& x,
                      const Precision& precision);

}  // namespace gatescope::core::gatedfwa
