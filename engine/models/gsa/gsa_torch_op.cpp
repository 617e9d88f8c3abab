#include "engine/models/gsa/gsa_torch_op.h"

#include <algorithm>

#include "kernels/cpu/cancel.h"

namespace gatescope::core::gsa {

GsaTorchOutput gsaForwardTorch(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& logForget,
                               const torch::Tensor& write, double scale, int64_t chunk,
                               bool bf16Probs) {
    const int64_t heads = q.size(0), n = q.size(1), group = heads / k.size(0);
    const int64_t dk = q.size(2), dv = v.size(2), m = logForget.size(2);
    auto perQueryHead = [&](const torch::Tensor& t) {
        return group == 1 ? t : t.repeat_interleave(group, 0);
    };
    const auto kq = perQueryHead(k), vq = perQueryHead(v);
    const auto lfq = perQueryHead(logForget), wq = perQueryHead(write);
    const auto opts = q.options();

    GsaTorchOutput r;
    r.out = torch::empty({heads, n, dv}, opts);
    r.slotScores = torch::empty({heads, n, m}, opts);
    r.slotProbs = torch::empty({heads, n, m}, opts);
    r.lse = torch::empty({heads, n}, opts);
    // G accumulated in float64 and rounded once, as the CPU kernel stores it.
    r.logForgetCumsum = logForget.to(torch::kFloat64).cumsum(1).to(torch::kFloat32);

    auto stateK = torch::zeros({heads, m, dk}, opts);
    auto stateV = torch::zeros({heads, m, dv}, opts);
    for (int64_t c0 = 0; c0 < n; c0 += chunk) {
        kernels::throwIfCancelled();
        const int64_t len = std::min(chunk, n - c0);
        const auto qc = q.narrow(1, c0, len), kc = kq.narrow(1, c0, len);
        const auto vc = vq.narrow(1, c0, len), sc = wq.narrow(1, c0, len);
        // Decays inside the chunk come from differences of the local cumsum g (all <= 0), so no
        // exp of a large cumulative sum is taken.
        const auto g = lfq.narrow(1, c0, len).cumsum(1);  // [H, L, m]
        const auto eg = g.exp();
        // D[t, i, j] = s_ij exp(g_tj - g_ij) for i <= t, else 0: [H, L, L, m].
        const auto causal =
            torch::ones({len, len}, opts.dtype(torch::kBool)).tril().view({1, len, len, 1});
        const auto diff = g.unsqueeze(2) - g.unsqueeze(1);
        const auto decay =
            torch::where(causal, diff, torch::full({}, -INFINITY, opts)).exp() * sc.unsqueeze(1);

        // Pass 1: slot scores o'_t = scale (e^g_t * (q_t K~) + sum_i (q_t.k_i) D[t, i]).
        const auto qk = torch::matmul(qc, kc.transpose(1, 2));  // [H, L, L]
        auto scores =
            eg * torch::matmul(qc, stateK.transpose(1, 2)) + (qk.unsqueeze(3) * decay).sum(2);
        scores = scores * scale;
        const auto lse = torch::logsumexp(scores, 2);
        auto probs = (scores - lse.unsqueeze(2)).exp();
        r.slotScores.narrow(1, c0, len).copy_(scores);
        r.slotProbs.narrow(1, c0, len).copy_(probs);
        r.lse.narrow(1, c0, len).copy_(lse);
        if (bf16Probs) probs = probs.to(torch::kBFloat16).to(torch::kFloat32);

        // Pass 2: o_t = (p_t e^g_t) V~ + sum_i (sum_j p_tj D[t, i, j]) v_i.
        const auto weights = (probs.unsqueeze(2) * decay).sum(3);  // [H, L, L]
        r.out.narrow(1, c0, len)
            .copy_(torch::matmul(probs * eg, stateV) + torch::matmul(weights, vc));

        // Carry the memories to the chunk's end: K~ <- e^g_last K~ + sum_i D[last, i]^T k_i.
        const auto toEnd = decay.select(1, len - 1);  // [H, L, m]
        const auto keep = eg.select(1, len - 1).unsqueeze(2);
        stateK = keep * stateK + torch::matmul(toEnd.transpose(1, 2), kc);
        stateV = keep * stateV + torch::matmul(toEnd.transpose(1, 2), vc);
    }
    return r;
}

}  // namespace gatescope::core::gsa
