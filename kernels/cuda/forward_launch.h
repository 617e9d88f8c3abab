// Private to kernels/cuda: the parameters every forward kernel of the additive log-decay family
// takes, and the launchers attention_forward.cu dispatches to. Strides are in elements and already
// resolved (no zeros meaning "contiguous").
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"

namespace gatescope::kernels::cuda::detail {

/// Gated power attention's logit (wall_power_cuda.h) in place of scale q.k: p log(|scale q.k| +
/// eps) + G_i - G_j with G in `c`; out divides by l + rowSumEps (kPowerRowSumEps). Read only by
/// the wgmma kernel's power instances (launchWgmmaPower).
struct PowerScore {
    float degree = 0.f, scale = 0.f, eps = 0.f, rowSumEps = 0.f;
};

struct FlashParams {
    const void* q;
    const void* k;
    const void* v;
    void* out;
    float* lse;
    const float* c;
    int64_t n, window;
    int64_t qHead, qRow, kHead, kRow, vHead, vRow, oHead, oRow, lseHead, cHead;
    int kvGroup;
    int cGroup = 1;   // query heads per row of c: head h reads c + (h / cGroup) * cHead
    float scaleLog2;  // scale * log2(e)
    PowerScore power;
};

/// FlashParams of a batch: strides resolved, one c row per query head, no power score.
FlashParams flashParams(const AdditiveDecayBatch& batch, const ForwardOutputs& outputs);

/// Whether the tensor-core kernels take this batch (attentionForward's test, with the output's
/// alignment): F16/BF16, dk == dv in {64, 128}, strides multiples of 8, 16-byte aligned.
bool tensorCoreBatch(const AdditiveDecayBatch& batch, const FlashParams& params,
                     const ForwardConfig& config, const ForwardOutputs& outputs);

/// Tensor-core kernel (attention_forward_mma.cu) for bf16/fp16 with dk == dv in {64, 128}.
/// Returns "sm80" when the build has no sm_80+ device code for it (the caller then takes the
/// fallback), else empty or the CUDA error.
std::string launchTensorCore(const FlashParams& params, int heads, int d, DType dtype,
                             cudaStream_t stream);

/// Whether this build holds sm_90a code for the wgmma kernel and the current device runs it
/// (probed once per process; the current device is assumed fixed).
bool hasSm90aCode();

/// sm_90a kernel (attention_forward_wgmma.cu, wgmma) for bf16/fp16 with dk == dv in {64, 128}.
/// Returns "sm90a" when the device is not compute capability 9.0 or the build has no sm_90a code
/// for it (the caller then takes launchTensorCore), else empty or the CUDA error.
std::string launchWgmma(const FlashParams& params, int heads, int d, DType dtype,
                        cudaStream_t stream);

/// launchWgmma for gated power attention (params.power.degree > 0; G in params.c, nullptr when
/// ungated) on bf16 operands, probabilities rounded to bf16 and summed rounded. Only where
/// hasSm90aCode() (powerForward checks it first); returns empty or the CUDA error.
std::string launchWgmmaPower(const FlashParams& params, int heads, int d, cudaStream_t stream);

/// Fallback kernel (attention_forward_fallback.cu): any dk, dv <= kFallbackMaxDim, any dtype.
inline constexpr int kFallbackMaxDim = 256;
std::string launchFallback(const FlashParams& params, int heads, int dk, int dv, DType dtype,
                           cudaStream_t stream);

}  // namespace gatescope::kernels::cuda::detail
