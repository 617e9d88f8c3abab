#include <limits>

#include "engine/train/train_net.h"

namespace gatescope::core::train {

torch::Tensor denseCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& bias, double scale,
                                   int64_t window) {
    const int64_t heads = q.size(1), kvHeads = k.size(1), n = q.size(2);
    auto kk = k, vv = v;
    if (kvHeads != heads) {
        kk = k.repeat_interleave(heads / kvHeads, 1);
        vv = v.repeat_interleave(heads / kvHeads, 1);
    }
    auto scores = torch::matmul(q, kk.transpose(-1, -2)) * scale;
    if (bias.defined()) scores = scores + bias;
    auto i = torch::arange(n, q.options().dtype(torch::kLong)).unsqueeze(1);
    auto j = torch::arange(n, q.options().dtype(torch::kLong)).unsqueeze(0);
    auto masked = j > i;
    if (window > 0) masked = masked | (i - j >= window);
    scores = scores.masked_fill(masked, -std::numeric_limits<float>::infinity());
    return torch::matmul(torch::softmax(scores, -1), vv);
}

torch::Tensor pairwiseDecay(const torch::Tensor& cumsum) {
    // Future keys get c_i - c_j > 0 here; the causal mask removes them before the softmax.
    return cumsum.unsqueeze(-1) - cumsum.unsqueeze(-2);
}

}  // namespace gatescope::core::train
