#include "engine/models/wall/wall_layer.h"

#include <cmath>

#include "engine/models/wall/wall_inputs.h"
#include "engine/nn/interventions.h"
#include "engine/nn/model_error.h"
#include "engine/nn/tensor_convert.h"
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

/// The Wall op on CUDA tensors: kernels::cuda::wallForward on the device, fp32 operands (qh, kh,
/// vh [heads or kv heads, N, D], cumsum [gate heads, N, gateDim], contiguous), bf16
/// probabilities before P.V when the model runs in bf16, like the CPU kernel. Writes out [H, N, D]
/// and lse [H, N] (fp32, on the device). With bf16 probabilities at head dims 64 and 128 the
/// operands go in as bf16 (they hold bf16 values: a bf16 model's projections and rotary) with a
/// workspace, which the tensor-core kernel takes on sm_90a (it rounds q exp(P_i - P_i0) and
/// k exp(P_i0 - P_j) to bf16, as the official kernel does); out then comes back rounded to bf16,
/// as the layer rounds it before o_proj anyway.
void cudaWall(const WallConfig& c, const torch::Tensor& qh, const torch::Tensor& kh,
              const torch::Tensor& vh, const torch::Tensor& cumsum, double scale, bool bf16Probs,
              torch::Tensor& out, torch::Tensor& lse) {
#ifndef GATESCOPE_HAS_CUDA
    (void)c, (void)qh, (void)kh, (void)vh, (void)cumsum, (void)scale, (void)bf16Probs, (void)out,
        (void)lse;
    throwModelError(ErrorKind::Internal, "cudaWall: this build has no CUDA kernels");
#else
    const int64_t n = qh.size(1), hd = c.headDim;
    const bool bf16 = bf16Probs && (hd == 64 || hd == 128);
    const auto dtype = bf16 ? torch::kBFloat16 : torch::kFloat32;
    const auto q = qh.to(dtype), k = kh.to(dtype), v = vh.to(dtype);
    out = torch::empty({c.heads, n, hd}, q.options());
    lse = torch::empty({c.heads, n}, qh.options());
    kernels::cuda::WallBatch batch;
    batch.heads = c.heads;
    batch.n = n;
    batch.dk = batch.dv = static_cast<int>(hd);
    batch.gatedChannels = c.gateDim;
    batch.kvGroup = c.group();
    batch.gateGroup = c.tieGates ? c.group() : 1;
    batch.dtype = bf16 ? kernels::cuda::DType::BF16 : kernels::cuda::DType::F32;
    batch.q = q.data_ptr();
    batch.k = k.data_ptr();
    batch.v = v.data_ptr();
    if (c.gateDim > 0) batch.logDecayCumsum = cumsum.data_ptr<float>();
    batch.scale = static_cast<float>(scale);
    kernels::cuda::ForwardOutputs outputs;
    outputs.out = out.data_ptr();
    outputs.lse = lse.data_ptr<float>();
    kernels::cuda::GatedForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    torch::Tensor workspace;
    if (const size_t bytes = kernels::cuda::wallWorkspaceBytes(batch, outputs, options)) {
        workspace = torch::empty({static_cast<int64_t>(bytes)}, q.options().dtype(torch::kUInt8));
        batch.workspace = workspace.data_ptr();
    }
    // The legacy default stream: the one LibTorch's ops run on here, so ordering is kept.
    const std::string error = kernels::cuda::wallForward(batch, outputs, nullptr, options);
    if (!error.empty()) throwModelError(ErrorKind::Internal, "CUDA Wall attention: " + error);
    out = out.to(torch::kFloat32);
#endif
}

/// Whether kernels::cuda::wallForward computes this layer: it knows none of the window, the
/// sink, the scalar gate or packed documents, so those run the CPU kernel instead.
bool cudaKernelFits(const WallConfig& c, std::span<const int64_t> documentStarts) {
    return kCudaKernels && c.headDim <= kMaxCudaHeadDim && c.window == 0 && !c.sinkBias &&
           !c.scalarGate && documentStarts.size() <= 1;
}

void record(const WallConfig& c, const WallLayerWeights& w, LayerRecord& rec, const WallInputs& in,
            const torch::Tensor& lse, std::span<const int64_t> documentStarts, double scale) {
    auto& a = rec.attention;
    a.scoreKind = ScoreKind::Wall;
    a.heads = c.heads;
    a.kvHeads = c.kvHeads;
    a.headDim = a.valueDim = c.headDim;
    a.channels = c.gateDim > 0 ? c.gateDim : (c.scalarGate ? 1 : 0);
    a.scale = scale;
    a.window = c.window;
    a.hasDecay = c.gateDim > 0 || c.scalarGate;
    nlohmann::json sink = nullptr;
    if (c.sinkBias)
        sink = std::vector<float>(w.sink.data_ptr<float>(), w.sink.data_ptr<float>() + c.heads);
    a.extras = {{"gated_channels", c.gateDim},
                {"tie_gates", c.tieGates},
                {"gate_soft_clamp", c.softClamp ? nlohmann::json(*c.softClamp) : nullptr},
                {"rope", c.useRope ? nlohmann::json(c.ropeTheta) : nullptr},
                {"scalar_gate", c.scalarGate},
                {"sink_bias", sink},
                {"document_starts",
                 documentStarts.empty()
                     ? std::vector<int64_t>{0}
                     : std::vector<int64_t>(documentStarts.begin(), documentStarts.end())},
                {"log_base", "natural (the official Triton kernel works in log2: P / ln 2)"},
                {"decay_map",
                 "mean over gated channels of exp(P_i - P_j), times exp(c_i - c_j) with the scalar "
                 "gate"}};
    rec.factors["q"] = toFloatArray(in.q);
    rec.factors["k"] = toFloatArray(in.k);
    rec.factors["v"] = toFloatArray(in.v);
    rec.factors["lse"] = toFloatArray(lse);
    if (c.gateDim > 0) {
        // Retention per query head (tied gates repeated over the group); P stays per gate head,
        // which trace readers map onto query heads.
        auto perQuery = in.gates.permute({1, 0, 2}).contiguous();
        if (c.tieGates) perQuery = perQuery.repeat_interleave(c.group(), 0);
        rec.logRetention = toFloatArray(perQuery);
        rec.factors["log_decay_cumsum"] = toFloatArray(in.cumsum);
    } else if (c.scalarGate) {
        // No per-channel gates: the scalar gate is the layer's one retention channel, as FoX's.
        rec.logRetention = toFloatArray(in.scalarGates.t().unsqueeze(2));
    }
    if (c.scalarGate) rec.factors["log_scalar_decay_cumsum"] = toFloatArray(in.scalarCumsum);
}

/// The CPU kernel on host copies of the inputs: out [H, N, hd] and lse [H, N] float32.
void cpuWall(const WallConfig& c, const WallLayerWeights& w, WallInputs& in,
             std::span<const int64_t> documentStarts, double scale, bool bf16Probs, int threads,
             torch::Tensor& out, torch::Tensor& lse) {
    for (auto* t : {&in.q, &in.k, &in.v, &in.cumsum, &in.scalarCumsum}) {
        if (t->defined()) *t = t->cpu();  // O(N d) each way when the model runs on CUDA
    }
    const int64_t n = in.q.size(1), h = c.heads, hd = c.headDim;
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
        head.q = in.q.data_ptr<float>() + i * n * hd;
        head.k = in.k.data_ptr<float>() + kv * n * hd;
        head.v = in.v.data_ptr<float>() + kv * n * hd;
        if (c.gateDim > 0) head.logDecayCumsum = in.cumsum.data_ptr<float>() + gate * n * c.gateDim;
        if (c.scalarGate) head.scalarDecayCumsum = in.scalarCumsum.data_ptr<float>() + i * n;
        if (c.sinkBias) head.sinkBias = w.sink.data_ptr<float>()[i];
        head.window = c.window;
        head.documentStarts = documentStarts.data();
        head.documents = static_cast<int64_t>(documentStarts.size());
        head.scale = static_cast<float>(scale);
        outs[i] = out.data_ptr<float>() + i * n * hd;
        lses[i] = lse.data_ptr<float>() + i * n;
    }
    kernels::ForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    kernels::wallForwardHeads(heads.data(), static_cast<int>(h), outs.data(), lses.data(), options,
                              threads);
}

}  // namespace

torch::Tensor wallAttention(const WallConfig& c, const WallLayerWeights& w,
                            const torch::Tensor& normed, const Precision& precision, int threads,
                            std::span<const int64_t> documentStarts, LayerRecord* rec,
                            const RunOptions* options, int layer) {
    const int64_t n = normed.size(0), h = c.heads, hd = c.headDim;
    checkDocumentStarts(documentStarts, n);
    auto in = wallInputs(c, w, normed, precision, documentStarts, options, layer);
    const auto device = normed.device();
    const double scale = 1.0 / std::sqrt(double(hd));
    torch::Tensor out, lse;
    if (device.is_cuda() && cudaKernelFits(c, documentStarts))
        cudaWall(c, in.q, in.k, in.v, in.cumsum, scale, precision.bf16, out, lse);
    else
        cpuWall(c, w, in, documentStarts, scale, precision.bf16, threads, out, lse);
    auto o = out.to(device).to(precision.activation()).permute({1, 0, 2}).reshape({n, h * hd});
    if (options) o = ablatedHeads(*options, layer, o, static_cast<int>(h));
    auto y = w.o(o, precision).to(torch::kFloat32);
    if (rec) record(c, w, *rec, in, lse, documentStarts, scale);
    return y;
}

}  // namespace gatescope::core::wall
