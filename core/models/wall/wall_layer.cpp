#include "core/models/wall/wall_layer.h"

#include <cmath>

#include "core/nn/model_error.h"
#include "core/nn/tensor_convert.h"
#include "kernels/cpu/wall_forward.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/wall_power_cuda.h"
#endif

namespace gatescope::core::wall {

namespace {

#ifdef GATESCOPE_HAS_CUDA
constexpr bool kCudaKernels = true;
#else
constexpr bool kCudaKernels = false;
#endif
/// Head dimensions kernels::cuda::wallForward takes; larger heads take the CPU kernel.
constexpr int64_t kMaxCudaHeadDim = 256;

/// [N, heads, D] (any dtype) -> [heads, N, D] contiguous float32, the kernel's layout.
torch::Tensor headMajor(const torch::Tensor& x) {
    return x.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
}

/// log gates [N, gate heads, gate_dim] in fp32: softclamp(logsigmoid(z)).
torch::Tensor logGates(const WallConfig& c, const WallLayerWeights& w, const torch::Tensor& normed,
                       const Precision& precision) {
    const int64_t n = normed.size(0);
    auto z = w.g(normed, precision).to(torch::kFloat32).view({n, c.gateHeads(), c.gateDim});
    auto g = torch::log_sigmoid(z);
    if (c.softClamp) g = *c.softClamp * torch::expm1(g / *c.softClamp);
    return g;
}

/// The Wall op on CUDA tensors: kernels::cuda::wallForward on the device, fp32 operands (qh, kh,
/// vh [heads or kv heads, N, D], cumsum [gate heads, N, gateDim], contiguous), bf16
/// probabilities before P.V when the model runs in bf16, like the CPU kernel. Writes out [H, N, D]
/// and lse [H, N] (fp32, on the device).
void cudaWall(const WallConfig& c, const torch::Tensor& qh, const torch::Tensor& kh,
              const torch::Tensor& vh, const torch::Tensor& cumsum, double scale, bool bf16Probs,
              torch::Tensor& out, torch::Tensor& lse) {
#ifndef GATESCOPE_HAS_CUDA
    (void)c, (void)qh, (void)kh, (void)vh, (void)cumsum, (void)scale, (void)bf16Probs, (void)out,
        (void)lse;
    throwModelError(ErrorKind::Internal, "cudaWall: this build has no CUDA kernels");
#else
    const int64_t n = qh.size(1), hd = c.headDim;
    out = torch::empty({c.heads, n, hd}, qh.options());
    lse = torch::empty({c.heads, n}, qh.options());
    kernels::cuda::WallBatch batch;
    batch.heads = c.heads;
    batch.n = n;
    batch.dk = batch.dv = static_cast<int>(hd);
    batch.gatedChannels = c.gateDim;
    batch.kvGroup = c.group();
    batch.gateGroup = c.tieGates ? c.group() : 1;
    batch.dtype = kernels::cuda::DType::F32;
    batch.q = qh.data_ptr<float>();
    batch.k = kh.data_ptr<float>();
    batch.v = vh.data_ptr<float>();
    if (c.gateDim > 0) batch.logDecayCumsum = cumsum.data_ptr<float>();
    batch.scale = static_cast<float>(scale);
    kernels::cuda::ForwardOutputs outputs;
    outputs.out = out.data_ptr<float>();
    outputs.lse = lse.data_ptr<float>();
    kernels::cuda::GatedForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    // The legacy default stream: the one LibTorch's ops run on here, so ordering is kept.
    const std::string error = kernels::cuda::wallForward(batch, outputs, nullptr, options);
    if (!error.empty()) throwModelError(ErrorKind::Internal, "CUDA Wall attention: " + error);
#endif
}

void record(const WallConfig& c, LayerRecord& rec, const torch::Tensor& qh, const torch::Tensor& kh,
            const torch::Tensor& vh, const torch::Tensor& lse, const torch::Tensor& gates,
            const torch::Tensor& cumsum, double scale) {
    auto& a = rec.attention;
    a.scoreKind = "wall";
    a.heads = c.heads;
    a.kvHeads = c.kvHeads;
    a.headDim = a.valueDim = c.headDim;
    a.channels = c.gateDim;
    a.scale = scale;
    a.hasDecay = c.gateDim > 0;
    a.extras = {{"gated_channels", c.gateDim},
                {"tie_gates", c.tieGates},
                {"gate_soft_clamp", c.softClamp ? nlohmann::json(*c.softClamp) : nullptr},
                {"rope", c.useRope ? nlohmann::json(c.ropeTheta) : nullptr},
                {"log_base", "natural (the official Triton kernel works in log2: P / ln 2)"},
                {"decay_map", "mean over gated channels of exp(P_i - P_j)"}};
    rec.factors["q"] = toFloatArray(qh);
    rec.factors["k"] = toFloatArray(kh);
    rec.factors["v"] = toFloatArray(vh);
    rec.factors["lse"] = toFloatArray(lse);
    if (c.gateDim > 0) {
        // Retention per query head (tied gates repeated over the group); P stays per gate head,
        // which trace readers map onto query heads.
        auto perQuery = headMajor(gates);
        if (c.tieGates) perQuery = perQuery.repeat_interleave(c.group(), 0);
        rec.logRetention = toFloatArray(perQuery);
        rec.factors["log_decay_cumsum"] = toFloatArray(cumsum);
    }
}

}  // namespace

torch::Tensor wallAttention(const WallConfig& c, const WallLayerWeights& w,
                            const torch::Tensor& normed, const Precision& precision, int threads,
                            LayerRecord* rec) {
    const int64_t n = normed.size(0), h = c.heads, hkv = c.kvHeads, hd = c.headDim;
    auto q = w.q(normed, precision).view({n, h, hd});
    auto k = w.k(normed, precision).view({n, hkv, hd});
    auto v = w.v(normed, precision).view({n, hkv, hd});
    if (c.useRope) {
        auto [cos, sin] = rotaryTables(n, hd, c.ropeTheta);
        cos = cos.to(normed.device());
        sin = sin.to(normed.device());
        q = applyRotaryHalf(q, cos, sin);
        k = applyRotaryHalf(k, cos, sin);
    }
    torch::Tensor gates, cumsum;
    if (c.gateDim > 0) {
        gates = logGates(c, w, normed, precision);
        // Accumulated in float64 and rounded once, so long prefixes carry no drift.
        cumsum = headMajor(gates.to(torch::kFloat64).cumsum(0));
    }
    auto qh = headMajor(q), kh = headMajor(k), vh = headMajor(v);
    const auto device = normed.device();
    const double scale = 1.0 / std::sqrt(double(hd));
    torch::Tensor out, lse;
    if (device.is_cuda() && kCudaKernels && hd <= kMaxCudaHeadDim) {
        cudaWall(c, qh, kh, vh, cumsum, scale, precision.bf16, out, lse);
        auto o = out.to(precision.activation()).permute({1, 0, 2}).reshape({n, h * hd});
        auto y = w.o(o, precision).to(torch::kFloat32);
        if (rec) record(c, *rec, qh, kh, vh, lse, gates, cumsum, scale);
        return y;
    }
    if (device.is_cuda()) {
        // A build without the CUDA kernels, or heads over 256 dims: the inputs come to the CPU
        // kernel and the output goes back (O(N d) each way).
        for (auto* t : {&qh, &kh, &vh, &cumsum}) {
            if (t->defined()) *t = t->cpu();
        }
    }
    out = torch::empty({h, n, hd}, torch::kFloat32);
    lse = torch::empty({h, n}, torch::kFloat32);
    std::vector<kernels::WallHead> heads(h);
    std::vector<float*> outs(h), lses(h);
    for (int64_t i = 0; i < h; ++i) {
        const int64_t kv = i / c.group(), gate = c.tieGates ? kv : i;
        auto& head = heads[i];
        head.n = n;
        head.dk = head.dv = static_cast<int>(hd);
        head.gatedChannels = c.gateDim;
        head.q = qh.data_ptr<float>() + i * n * hd;
        head.k = kh.data_ptr<float>() + kv * n * hd;
        head.v = vh.data_ptr<float>() + kv * n * hd;
        if (c.gateDim > 0) head.logDecayCumsum = cumsum.data_ptr<float>() + gate * n * c.gateDim;
        head.scale = static_cast<float>(scale);
        outs[i] = out.data_ptr<float>() + i * n * hd;
        lses[i] = lse.data_ptr<float>() + i * n;
    }
    kernels::ForwardOptions options;
    options.roundProbsToBf16 = precision.bf16;
    kernels::wallForwardHeads(heads.data(), static_cast<int>(h), outs.data(), lses.data(), options,
                              threads);
    auto o = out.to(device).to(precision.activation()).permute({1, 0, 2}).reshape({n, h * hd});
    auto y = w.o(o, precision).to(torch::kFloat32);
    if (rec) record(c, *rec, qh, kh, vh, lse, gates, cumsum, scale);
    return y;
}

}  // namespace gatescope::core::wall
