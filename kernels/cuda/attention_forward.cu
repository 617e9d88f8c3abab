// Entry points of the fused forward (attention_cuda.h): argument checks, stride resolution and
// the choice between the tensor-core kernels (attention_forward_wgmma.cu on sm_90a, else
// attention_forward_mma.cu) and the fallback kernel (attention_forward_fallback.cu).
#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"

namespace gatescope::kernels::cuda {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

bool aligned16(const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
}

}  // namespace

ForwardPath forwardPath(const AdditiveDecayBatch& b, const ForwardConfig& config) {
    if (config.forceFallback || b.dtype == DType::F32 || b.dk != b.dv ||
        (b.dk != 64 && b.dk != 128))
        return ForwardPath::Fallback;
    const int64_t qRow = b.qRowStride ? b.qRowStride : b.dk;
    const int64_t kRow = b.kRowStride ? b.kRowStride : b.dk;
    const int64_t vRow = b.vRowStride ? b.vRowStride : b.dv;
    for (int64_t stride : {qRow, kRow, vRow, b.qHeadStride, b.kHeadStride, b.vHeadStride})
        if (stride % 8 != 0) return ForwardPath::Fallback;
    if (!aligned16(b.q) || !aligned16(b.k) || !aligned16(b.v)) return ForwardPath::Fallback;
    return ForwardPath::TensorCore;
}

std::string attentionForward(const AdditiveDecayBatch& b, const ForwardOutputs& o, void* stream,
                             const ForwardConfig& config) {
    if (b.heads < 0 || b.n < 0 || b.dk < 1 || b.dv < 1 || b.kvGroup < 1)
        return "attentionForward: bad sizes (heads, n >= 0; dk, dv, kvGroup >= 1)";
    if (b.dk > detail::kFallbackMaxDim || b.dv > detail::kFallbackMaxDim)
        return "attentionForward: head dimensions above 256 are not supported";
    if (b.heads == 0 || b.n == 0) return {};
    if (!b.q || !b.k || !b.v || !o.out) return "attentionForward: null q, k, v or out";
    if (b.heads % b.kvGroup != 0) return "attentionForward: heads not a multiple of kvGroup";
    if (b.n > (int64_t{1} << 30)) return "attentionForward: n over 2^30";

    const detail::FlashParams p = detail::flashParams(b, o);
    const cudaStream_t s = detail::asStream(stream);
    if (detail::tensorCoreBatch(b, p, config, o)) {
        std::string result = detail::launchWgmma(p, b.heads, b.dk, b.dtype, s);
        if (result != "sm90a") return result;
        result = detail::launchTensorCore(p, b.heads, b.dk, b.dtype, s);
        if (result != "sm80") return result;
    }
    return detail::launchFallback(p, b.heads, b.dk, b.dv, b.dtype, s);
}

namespace detail {

FlashParams flashParams(const AdditiveDecayBatch& b, const ForwardOutputs& o) {
    FlashParams p{};
    p.q = b.q;
    p.k = b.k;
    p.v = b.v;
    p.out = o.out;
    p.lse = o.lse;
    p.c = b.logDecayCumsum;
    p.n = b.n;
    p.window = b.window;
    p.qRow = b.qRowStride ? b.qRowStride : b.dk;
    p.kRow = b.kRowStride ? b.kRowStride : b.dk;
    p.vRow = b.vRowStride ? b.vRowStride : b.dv;
    p.oRow = o.outRowStride ? o.outRowStride : b.dv;
    p.qHead = b.qHeadStride ? b.qHeadStride : b.n * p.qRow;
    p.kHead = b.kHeadStride ? b.kHeadStride : b.n * p.kRow;
    p.vHead = b.vHeadStride ? b.vHeadStride : b.n * p.vRow;
    p.oHead = o.outHeadStride ? o.outHeadStride : b.n * p.oRow;
    p.lseHead = o.lseHeadStride ? o.lseHeadStride : b.n;
    p.cHead = b.decayHeadStride ? b.decayHeadStride : b.n;
    p.kvGroup = b.kvGroup;
    p.scaleLog2 = b.scale * kLog2e;
    return p;
}

AdditiveDecayBatch additiveDecayShape(const GatedHeads& h) {
    AdditiveDecayBatch b;
    b.heads = h.heads;
    b.n = h.n;
    b.dk = h.dk;
    b.dv = h.dv;
    b.kvGroup = h.kvGroup;
    b.dtype = h.dtype;
    b.q = h.q;
    b.k = h.k;
    b.v = h.v;
    b.qHeadStride = h.qHeadStride;
    b.qRowStride = h.qRowStride;
    b.kHeadStride = h.kHeadStride;
    b.kRowStride = h.kRowStride;
    b.vHeadStride = h.vHeadStride;
    b.vRowStride = h.vRowStride;
    b.scale = h.scale;
    return b;
}

bool tensorCoreBatch(const AdditiveDecayBatch& b, const FlashParams& p, const ForwardConfig& config,
                     const ForwardOutputs& o) {
    AdditiveDecayBatch strided = b;
    strided.qHeadStride = p.qHead;
    strided.kHeadStride = p.kHead;
    strided.vHeadStride = p.vHead;
    return forwardPath(strided, config) == ForwardPath::TensorCore && p.oRow % 2 == 0 &&
           p.oHead % 2 == 0 && reinterpret_cast<uintptr_t>(o.out) % 4 == 0;
}

}  // namespace detail
}  // namespace gatescope::kernels::cuda
