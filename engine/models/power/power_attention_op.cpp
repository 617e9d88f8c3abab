#include "engine/models/power/power_attention_op.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/nn/model_error.h"
#include "kernels/cpu/cancel.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/power_state_norm.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/wall_power_cuda.h"
#endif

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

/// The same math with LibTorch ops on the tensors' device (CUDA), query rows in chunks so that
/// at most about 2^26 scores exist at once: memory O(N (d + chunk)) per call, never N x N.
PowerAttentionOutput chunkedPowerAttention(const torch::Tensor& q, const torch::Tensor& k,
                                           const torch::Tensor& v, const torch::Tensor& g,
                                           double scale, int degree, bool bf16Probs) {
    const int64_t heads = q.size(0), n = q.size(1), group = heads / k.size(0);
    auto kq = group == 1 ? k : k.repeat_interleave(group, 0);
    auto vq = group == 1 ? v : v.repeat_interleave(group, 0);
    auto gq = g.defined() && group > 1 ? g.repeat_interleave(group, 0) : g;
    PowerAttentionOutput result{torch::empty({heads, n, v.size(2)}, q.options()),
                                torch::empty({heads, n}, q.options())};
    const int64_t chunk = std::clamp<int64_t>((int64_t{1} << 26) / (heads * n), 16, 1024);
    const auto negInf = -std::numeric_limits<float>::infinity();
    for (int64_t i0 = 0; i0 < n; i0 += chunk) {
        kernels::throwIfCancelled();
        const int64_t rows = std::min(chunk, n - i0), keys = i0 + rows;
        auto dots = torch::matmul(q.narrow(1, i0, rows), kq.narrow(1, 0, keys).transpose(1, 2));
        auto s = degree * torch::log(torch::abs(dots * scale) + kernels::kPowerLogEps);
        if (gq.defined()) {
            s = s + gq.narrow(1, i0, rows).unsqueeze(2) - gq.narrow(1, 0, keys).unsqueeze(1);
        }
        auto rowIndex = torch::arange(i0, keys, q.options().dtype(torch::kInt64)).unsqueeze(1);
        auto colIndex = torch::arange(0, keys, q.options().dtype(torch::kInt64)).unsqueeze(0);
        s = s.masked_fill(colIndex > rowIndex, negInf);
        auto m = std::get<0>(s.max(2, true));
        auto w = torch::exp(s - m);
        if (bf16Probs) w = w.to(torch::kBFloat16).to(torch::kFloat32);
        auto l = w.sum(2, true) + kernels::kPowerRowSumEps;
        result.out.narrow(1, i0, rows).copy_(torch::matmul(w, vq.narrow(1, 0, keys)) / l);
        result.logNormalizer.narrow(1, i0, rows).copy_((m + torch::log(l)).squeeze(2));
    }
    return result;
}

#ifdef GATESCOPE_HAS_CUDA
/// The fused CUDA forward (kernels::cuda::powerForward) on contiguous float32 device tensors:
/// one pass for out and the log normalizer, fp32 arithmetic, weights rounded to bf16 before the
/// row sum and P.V when bf16Probs, like the CPU kernel. With bf16Probs at head dims 64 and 128 the
/// operands go in as bf16 (they hold bf16 values: a bf16 model's projections and rotary), which
/// the tensor-core kernel takes on sm_90a; out then comes back rounded to bf16, as the layer
/// rounds it before c_proj anyway.
PowerAttentionOutput fusedPowerAttention(const torch::Tensor& qf, const torch::Tensor& kf,
                                         const torch::Tensor& vf, const torch::Tensor& g,
                                         double scale, int degree, bool bf16Probs) {
    const int64_t heads = qf.size(0), n = qf.size(1), dk = qf.size(2), dv = vf.size(2);
    const bool bf16 = bf16Probs && dk == dv && (dk == 64 || dk == 128);
    const auto dtype = bf16 ? torch::kBFloat16 : torch::kFloat32;
    auto q = qf.to(dtype), k = kf.to(dtype), v = vf.to(dtype);
    PowerAttentionOutput result{torch::empty({heads, n, dv}, q.options()),
                                torch::empty({heads, n}, qf.options())};
    kernels::cuda::PowerBatch batch;
    batch.heads = static_cast<int>(heads);
    batch.n = n;
    batch.dk = static_cast<int>(dk);
    batch.dv = static_cast<int>(dv);
    batch.kvGroup = static_cast<int>(heads / k.size(0));
    batch.gateGroup = batch.kvGroup;  // G is per k/v head
    batch.dtype = bf16 ? kernels::cuda::DType::BF16 : kernels::cuda::DType::F32;
    batch.q = q.data_ptr();
    batch.k = k.data_ptr();
    batch.v = v.data_ptr();
    batch.logDecayCumsum = g.defined() ? g.data_ptr<float>() : nullptr;
    batch.scale = static_cast<float>(scale);
    batch.degree = degree;
    batch.eps = kernels::kPowerLogEps;
    kernels::cuda::ForwardOutputs outputs;
    outputs.out = result.out.data_ptr();
    outputs.lse = result.logNormalizer.data_ptr<float>();
    kernels::cuda::GatedForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    // The legacy default stream: the one LibTorch's ops run on here, so ordering is kept.
    const std::string error = kernels::cuda::powerForward(batch, outputs, nullptr, options);
    if (!error.empty()) throwModelError(ErrorKind::Internal, "CUDA power attention: " + error);
    result.out = result.out.to(torch::kFloat32);
    return result;
}
#endif

}  // namespace

bool fusedCudaPowerAttention(int64_t headDim, int64_t valueDim, int degree) {
#ifdef GATESCOPE_HAS_CUDA
    return headDim >= 1 && headDim <= 256 && valueDim >= 1 && valueDim <= 256 && degree > 0 &&
           degree % 2 == 0;
#else
    (void)headDim, (void)valueDim, (void)degree;
    return false;
#endif
}

PowerAttentionOutput powerAttention(const torch::Tensor& q, const torch::Tensor& k,
                                    const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                    double scale, int degree, bool bf16Probs, int threads) {
    auto qc = contiguousFloat(q), kc = contiguousFloat(k), vc = contiguousFloat(v);
    auto gc = contiguousFloat(logDecayCumsum);
    if (qc.is_cuda()) {
#ifdef GATESCOPE_HAS_CUDA
        if (fusedCudaPowerAttention(qc.size(2), vc.size(2), degree))
            return fusedPowerAttention(qc, kc, vc, gc, scale, degree, bf16Probs);
#endif
        return chunkedPowerAttention(qc, kc, vc, gc, scale, degree, bf16Probs);
    }
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
    if (k.is_cuda()) {
        // No GPU version of the state-norm recurrence yet: O(N d^p) on the CPU, then back.
        const auto cpu = torch::Device(torch::kCPU);
        auto norms = powerStateNorms(
            k.to(cpu), v.to(cpu),
            logDecayCumsum.defined() ? logDecayCumsum.to(cpu) : logDecayCumsum, degree, threads);
        return {norms.state.to(k.device()), norms.normalizer.to(k.device())};
    }
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
