#include "engine/models/gsa/gsa_layer.h"

#include "engine/models/gsa/gsa_torch_op.h"

#include "engine/nn/interventions.h"
#include "engine/nn/model_error.h"
#include "engine/nn/tensor_convert.h"
#include "kernels/cpu/gsa_forward.h"

namespace gatescope::core::gsa {

namespace {

// The official layer calls rms_norm_linear(silu(o), g_norm.weight, ...) without passing g_norm's
// eps, so the fused kernel's default applies whatever norm_eps says (the fixture confirms it).
constexpr double kOutputNormEps = 1e-5;

/// fla ShortConvolution: y_t = silu(b + sum_k w[:, k] x_{t - K + 1 + k}), zero history, computed in
/// fp32 and stored in the activation dtype like the Triton kernel.
torch::Tensor shortConv(const torch::Tensor& x, const ShortConv& conv, torch::ScalarType dtype) {
    auto xf = x.to(torch::kFloat32);
    const int64_t n = xf.size(0), size = conv.weight.size(1);
    auto y = torch::zeros_like(xf);
    for (int64_t k = 0; k < size; ++k) {
        const int64_t shift = size - 1 - k;
        if (shift >= n) continue;
        y.narrow(0, shift, n - shift).add_(xf.narrow(0, 0, n - shift) * conv.weight.select(1, k));
    }
    if (conv.bias.defined()) y = y + conv.bias;
    return torch::silu(y).to(dtype);
}

torch::Tensor featureMap(const torch::Tensor& x, const GsaConfig& c, const GsaLayerWeights& w,
                         const Precision& precision) {
    switch (c.featureMap) {
        case FeatureMap::Swish:
            return torch::silu(x);
        case FeatureMap::Relu:
            return torch::relu(x);
        case FeatureMap::T2R:
            return torch::relu(w.featureMap(x, precision));
    }
    return x;
}

/// [N, heads, D] (any dtype) -> [heads, N, D] contiguous float32, the kernel's layout.
torch::Tensor headMajor(const torch::Tensor& x) {
    return x.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
}

/// The slot-attention op on the CPU kernel; the record-only outputs are undefined unless `record`.
GsaTorchOutput gsaOnCpu(const torch::Tensor& qh, const torch::Tensor& kh, const torch::Tensor& vh,
                        const torch::Tensor& logForgetH, const torch::Tensor& writeH,
                        const Precision& precision, int threads, bool record) {
    const int64_t h = qh.size(0), n = qh.size(1), hkv = kh.size(0), m = logForgetH.size(2);
    auto opts = torch::TensorOptions().dtype(torch::kFloat32);
    GsaTorchOutput r;
    r.out = torch::empty({h, n, vh.size(2)}, opts);
    kernels::GsaForwardInput input;
    input.n = n;
    input.heads = static_cast<int>(h);
    input.kvHeads = static_cast<int>(hkv);
    input.dk = static_cast<int>(qh.size(2));
    input.dv = static_cast<int>(vh.size(2));
    input.slots = static_cast<int>(m);
    input.q = qh.data_ptr<float>();
    input.k = kh.data_ptr<float>();
    input.v = vh.data_ptr<float>();
    input.logForget = logForgetH.data_ptr<float>();
    input.write = writeH.data_ptr<float>();
    input.scale = 1.0f;  // the model passes scale=1, not the op's default 1/sqrt(dk)
    kernels::GsaForwardOutput output;
    output.out = r.out.data_ptr<float>();
    if (record) {
        r.slotScores = torch::empty({h, n, m}, opts);
        r.slotProbs = torch::empty({h, n, m}, opts);
        r.lse = torch::empty({h, n}, opts);
        r.logForgetCumsum = torch::empty({hkv, n, m}, opts);
        output.slotScores = r.slotScores.data_ptr<float>();
        output.slotProbs = r.slotProbs.data_ptr<float>();
        output.lse = r.lse.data_ptr<float>();
        output.logForgetCumsum = r.logForgetCumsum.data_ptr<float>();
    }
    kernels::GsaForwardOptions options;
    options.chunkSize = kChunkSize;
    options.threads = threads;
    options.roundProbsToBf16 = precision.bf16;
    if (!kernels::gsaForward(input, output, options)) {
        throwModelError(ErrorKind::Internal, "GSA kernel rejected the layer's sizes");
    }
    return r;
}

/// The same op with LibTorch ops on the tensors' device (CUDA: no custom GSA kernel exists).
GsaTorchOutput gsaOnDevice(const torch::Tensor& qh, const torch::Tensor& kh,
                           const torch::Tensor& vh, const torch::Tensor& logForgetH,
                           const torch::Tensor& writeH, const Precision& precision, bool record) {
    auto r = gsaForwardTorch(qh, kh, vh, logForgetH, writeH, 1.0, kChunkSize, precision.bf16);
    if (!record) r.slotScores = r.slotProbs = r.lse = r.logForgetCumsum = torch::Tensor();
    return r;
}

}  // namespace

torch::Tensor gsaAttention(const GsaConfig& c, const GsaLayerWeights& w,
                           const torch::Tensor& normed, const Precision& precision, int threads,
                           LayerRecord* rec, const RunOptions* options, int layer) {
    const int64_t n = normed.size(0), h = c.heads, hkv = c.kvHeads, m = c.slots;
    const int64_t dk = c.headKDim, dv = c.headVDim;
    const auto act = precision.activation();

    auto q = w.q(normed, precision);
    auto k = w.k(normed, precision);
    auto v = w.v(normed, precision);
    if (c.useShortConv) {
        q = shortConv(q, w.qConv, act);
        k = shortConv(k, w.kConv, act);
        v = shortConv(v, w.vConv, act);
    }
    q = featureMap(q.view({n, h, dk}), c, w, precision);
    k = featureMap(k.view({n, hkv, dk}), c, w, precision);
    v = torch::silu(v.view({n, hkv, dv}));
    // log alpha = logsigmoid(f) / tau and s = 1 - alpha, each rounded in the activation dtype as
    // the official code does (a no-op in fp32).
    auto f = w.f(normed, precision).view({n, hkv, m});
    auto logForget = torch::log_sigmoid(f.to(torch::kFloat32)).to(act);
    logForget = (logForget.to(torch::kFloat32) / c.gateLogitNormalizer).to(act);
    auto write = (1.0 - logForget.to(torch::kFloat32).exp()).to(act);
    if (options) {  // the decay only: the write weight above stays the model's
        auto perGateHead = logForget.to(torch::kFloat32).permute({1, 0, 2});
        auto changed = intervenedLogGate(*options, layer, perGateHead);
        if (!changed.is_same(perGateHead)) logForget = changed.permute({1, 0, 2}).to(act);
    }

    auto qh = headMajor(q), kh = headMajor(k), vh = headMajor(v);
    auto logForgetH = headMajor(logForget), writeH = headMajor(write);
    const auto device = normed.device();
    const auto [out, scores, probs, lse, cumsum] =
        device.is_cuda()
            ? gsaOnDevice(qh, kh, vh, logForgetH, writeH, precision, rec != nullptr)
            : gsaOnCpu(qh, kh, vh, logForgetH, writeH, precision, threads, rec != nullptr);
    auto o = out.to(act).permute({1, 0, 2}).reshape({n, h * dv});
    o = rmsNorm(torch::silu(o), w.gNorm, kOutputNormEps, act);
    if (options) o = ablatedHeads(*options, layer, o, static_cast<int>(h));
    auto y = w.o(o, precision).to(torch::kFloat32);

    if (rec) {
        const int64_t group = c.group();
        auto& a = rec->attention;
        a.scoreKind = ScoreKind::Gsa;
        a.heads = static_cast<int>(h);
        a.kvHeads = static_cast<int>(hkv);
        a.headDim = static_cast<int>(dk);
        a.valueDim = static_cast<int>(dv);
        a.channels = static_cast<int>(m);
        a.scale = 1.0;
        a.window = 0;
        a.hasDecay = true;
        a.extras = {{"slots", m},
                    {"gate_logit_normalizer", c.gateLogitNormalizer},
                    {"feature_map", c.featureMap == FeatureMap::Swish  ? "swish"
                                    : c.featureMap == FeatureMap::Relu ? "relu"
                                                                       : "t2r"},
                    {"chunk_size", kChunkSize}};
        // Gate-side arrays are per query head, so a head's tile source reads row h directly.
        rec->logRetention = toFloatArray(logForgetH.repeat_interleave(group, 0));
        rec->factors["q"] = toFloatArray(qh);
        rec->factors["k"] = toFloatArray(kh);
        rec->factors["v"] = toFloatArray(vh);
        rec->factors["write"] = toFloatArray(writeH.repeat_interleave(group, 0));
        rec->factors["slot_scores"] = toFloatArray(scores);
        rec->factors["slot_probs"] = toFloatArray(probs);
        rec->factors["lse"] = toFloatArray(lse);
        rec->factors["log_forget_cumsum"] = toFloatArray(cumsum.repeat_interleave(group, 0));
    }
    return y;
}

}  // namespace gatescope::core::gsa
