// Private to kernels/cuda: the parameters every forward kernel of the additive log-decay family
// takes, and the launchers attention_forward.cu dispatches to. Strides are in elements and already
// resolved (no zeros meaning "contiguous").
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"

namespace gatescope::kernels::cuda::detail {

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
    float scaleLog2;  // scale * log2(e)
};

/// Tensor-core kernel (attention_forward_mma.cu) for bf16/fp16 with dk == dv in {64, 128}.
/// Returns "sm80" when the build has no sm_80+ device code for it (the caller then takes the
/// fallback), else empty or the CUDA error.
std::string launchTensorCore(const FlashParams& params, int heads, int d, DType dtype,
                             cudaStream_t stream);

/// sm_90a kernel (attention_forward_wgmma.cu, wgmma) for bf16/fp16 with dk == dv in {64, 128}.
/// Returns "sm90a" when the device is not compute capability 9.0 or the build has no sm_90a code
/// for it (the caller then takes launchTensorCore), else empty or the CUDA error.
std::string launchWgmma(const FlashParams& params, int heads, int d, DType dtype,
                        cudaStream_t stream);

/// Fallback kernel (attention_forward_fallback.cu): any dk, dv <= kFallbackMaxDim, any dtype.
inline constexpr int kFallbackMaxDim = 256;
std::string launchFallback(const FlashParams& params, int heads, int dk, int dv, DType dtype,
                           cudaStream_t stream);

}  // namespace gatescope::kernels::cuda::detail
