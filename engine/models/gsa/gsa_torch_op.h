// Gated Slot Attention's two-pass forward written with LibTorch ops, for CUDA tensors (no custom
// GSA kernel exists): the same chunked math as kernels::gsaForward (kernels/cpu/gsa_forward.h),
// one chunk of tokens at a time with the slot memories K~ [heads, m, dk] and V~ [heads, m, dv]
// carried across chunks. Memory is O(heads x chunk^2 x m) for one chunk plus the O(N) outputs;
// nothing N x N exists.
#pragma once

#include <torch/torch.h>

namespace gatescope::core::gsa {

/// All [heads, n, x] float32 on the inputs' device; cumsum is per kv head [kvHeads, n, m].
struct GsaTorchOutput {
    torch::Tensor out, slotScores, slotProbs, lse, logForgetCumsum;
};

/// q [heads, n, dk], k [kvHeads, n, dk], v [kvHeads, n, dv], logForget and write [kvHeads, n, m],
/// all float32 and contiguous on one device (query head h reads kv head h / (heads / kvHeads)).
/// `bf16Probs` rounds the slot probabilities to bfloat16 before the second pass, as the CPU
/// kernel's roundProbsToBf16 does. Runs asynchronously on the current stream of that device.
GsaTorchOutput gsaForwardTorch(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& logForget,
                               const torch::Tensor& write, double scale, int64_t chunk,
                               bool bf16Probs);

}  // namespace gatescope::core::gsa
