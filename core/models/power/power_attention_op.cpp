#include "core/models/power/power_attention_op.h"

#include <vector>

#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/power_state_norm.h"

namespace gatescope::core::power {

namespace {

kernels::PowerHead headView(const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g,
                            int64_t kvHead, int degree) {
    const int64_t n = k.size(1), dk = k.size(2), dv = v.size(2);
    kernels::PowerHead view;
    view.n = n;
    view.dk = static_cast<int>(dk);
    view.dv = static_cast<int>(dv);
    view.k = k.data_ptr<float>() + kvHead * n * dk;
    view.v = v.data_ptr<float>() + kvHead * n * dv;
    view.logDecayCumsum = g.defined() ? g.data_ptr<float>() + kvHead * n : nullptr;
    view.degree = degree;
    return view;
}

torch::Tensor contiguousFloat(const torch::Tensor& t) {
    return t.defined() ? t.to(torch::kFloat32).contiguous() : t;
}

}  // namespace

PowerAttentionOutput powerAttention(const torch::Tensor& q, const torch::Tensor& k,
                                    const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                    double scale, int degree, bool bf16Probs, int threads) {
    auto qc = contiguousFloat(q), kc = contiguousFloat(k), vc = contiguousFloat(v);
    auto gc = contiguousFloat(logDecayCumsum);
    const int64_t heads = qc.size(0), n = qc.size(1), dk = qc.size(2);
    const int64_t group = heads / kc.size(0), dv = vc.size(2);

    PowerAttentionOutput result{torch::empty({heads, n, dv}, torch::kFloat32),
                                torch::empty({heads, n}, torch::kFloat32)};
    std::vector<kernels::PowerHead> views(heads);
    std::vector<float*> outs(heads), norms(heads);
    for (int64_t h = 0; h < heads; ++h) {
        views[h] = headView(kc, vc, gc, h / group, degree);
        views[h].q = qc.data_ptr<float>() + h * n * dk;
        views[h].scale = static_cast<float>(scale);
        outs[h] = result.out.data_ptr<float>() + h * n * dv;
        norms[h] = result.logNormalizer.data_ptr<float>() + h * n;
    }
    kernels::PowerForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    kernels::powerAttentionForwardHeads(views.data(), static_cast<int>(heads), outs.data(),
                                        norms.data(), options, threads);
    return result;
}

PowerStateNorms powerStateNorms(const torch::Tensor& k, const torch::Tensor& v,
                                const torch::Tensor& logDecayCumsum, int degree, int threads) {
    auto kc = contiguousFloat(k), vc = contiguousFloat(v), gc = contiguousFloat(logDecayCumsum);
    const int64_t kvHeads = kc.size(0), n = kc.size(1);
    PowerStateNorms result{torch::empty({kvHeads, n}, torch::kFloat32),
                           torch::empty({kvHeads, n}, torch::kFloat32)};
    kernels::parallelFor(kvHeads, threads, [&](int64_t h) {
        auto view = headView(kc, vc, gc, h, degree);
        kernels::powerStateNorm(view, result.state.data_ptr<float>() + h * n,
                                result.normalizer.data_ptr<float>() + h * n);
    });
    return result;
}

}  // namespace gatescope::core::power
