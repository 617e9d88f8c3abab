#include "core/nn/attention.h"

#include <vector>

#include "kernels/cpu/attention_forward.h"

namespace gatescope::core {

AttentionOutput additiveDecayAttention(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                       double scale, int64_t window, bool bf16Probs, int threads) {
    auto qc = q.to(torch::kFloat32).contiguous();
    auto kc = k.to(torch::kFloat32).contiguous();
    auto vc = v.to(torch::kFloat32).contiguous();
    torch::Tensor cc;
    if (logDecayCumsum.defined()) cc = logDecayCumsum.to(torch::kFloat32).contiguous();

    const int64_t heads = qc.size(0), n = qc.size(1), dk = qc.size(2);
    const int64_t kvHeads = kc.size(0), dv = vc.size(2);
    const int64_t group = heads / kvHeads;

    AttentionOutput result{torch::empty({heads, n, dv}, torch::kFloat32),
                           torch::empty({heads, n}, torch::kFloat32)};
    std::vector<kernels::AdditiveDecayHead> views(heads);
    std::vector<float*> outs(heads), lses(heads);
    for (int64_t h = 0; h < heads; ++h) {
        auto& view = views[h];
        view.n = n;
        view.dk = static_cast<int>(dk);
        view.dv = static_cast<int>(dv);
        view.q = qc.data_ptr<float>() + h * n * dk;
        view.k = kc.data_ptr<float>() + (h / group) * n * dk;
        view.v = vc.data_ptr<float>() + (h / group) * n * dv;
        view.logDecayCumsum = cc.defined() ? cc.data_ptr<float>() + h * n : nullptr;
        view.scale = static_cast<float>(scale);
        view.window = window;
        outs[h] = result.out.data_ptr<float>() + h * n * dv;
        lses[h] = result.lse.data_ptr<float>() + h * n;
    }
    kernels::ForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    kernels::attentionForwardHeads(views.data(), static_cast<int>(heads), outs.data(), lses.data(),
                                   options, threads);
    return result;
}

}  // namespace gatescope::core
