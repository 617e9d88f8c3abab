// Private to engine/models/power: runs the blockwise CPU power attention and state-norm kernels of
// kernels/cpu on LibTorch tensors, one worker per head.
#pragma once

#include <cstdint>

#include "engine/torch_pch.h"

namespace gatescope::core::power {

struct PowerAttentionOutput {
    torch::Tensor out;            ///< [H, N, Dv] float32
    torch::Tensor logNormalizer;  ///< [H, N] float32: rowmax + log(row sum + 1e-6), natural log
};

/// Gated power attention, the package's attention form (power_full with norm=True).
/// q [H, N, D]; k [Hkv, N, D]; v [Hkv, N, Dv] (query head h reads kv head h / (H / Hkv));
/// logDecayCumsum G [Hkv, N] or undefined (ungated). Converted to float32 if needed.
/// CPU tensors: the blockwise CPU kernel. CUDA tensors: the fused kernel of kernels/cuda
/// (kernels::cuda::powerForward) where fusedCudaPowerAttention says so (with bf16Probs at head
/// dims 64 and 128 the operands go in as bf16, which holds their values exactly, and run on
/// tensor cores on sm_90a), else LibTorch ops in query chunks (O(N (d + chunk)) memory). Throws
/// ModelError when the CUDA kernel fails.
PowerAttentionOutput powerAttention(const torch::Tensor& q, const torch::Tensor& k,
                                    const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                    double scale, int degree, bool bf16Probs, int threads);

/// Whether powerAttention runs CUDA tensors of these sizes through the fused CUDA kernel: a build
/// with the CUDA kernels, head and value dims in [1, 256], degree even and > 0.
bool fusedCudaPowerAttention(int64_t headDim, int64_t valueDim, int degree);

struct PowerStateNorms {
    torch::Tensor state;       ///< [Hkv, N]: |S_t|_F of S_t = g_t S_{t-1} + v_t phi(k_t)^T
    torch::Tensor normalizer;  ///< [Hkv, N]: |z_t| of z_t = g_t z_{t-1} + phi(k_t)
};

/// Norms of each kv head's recurrent state at every position (the spec's exact recurrence).
PowerStateNorms powerStateNorms(const torch::Tensor& k, const torch::Tensor& v,
                                const torch::Tensor& logDecayCumsum, int degree, int threads);

}  // namespace gatescope::core::power
