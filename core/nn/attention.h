// Private to core/models: runs the blockwise CPU attention of kernels/ on LibTorch tensors.
#pragma once

#include <cstdint>

#include "core/torch_pch.h"

namespace gatescope::core {

struct AttentionOutput {
    torch::Tensor out;  ///< [H, N, Dv] float32
    torch::Tensor lse;  ///< [H, N] float32, natural log
};

/// Softmax attention with an additive decay bias c_i - c_j (the Transformer/FoX/GatedFWA family).
/// q [H, N, D]; k [Hkv, N, D]; v [Hkv, N, Dv] (query head h reads kv head h / (H / Hkv));
/// logDecayCumsum [H, N] or undefined (no decay). All float32 (converted if not). window 0: full
/// causal. bf16Probs emulates the bf16 kernels' rounding of P before P.V.
AttentionOutput additiveDecayAttention(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                       double scale, int64_t window, bool bf16Probs, int threads);

}  // namespace gatescope::core
