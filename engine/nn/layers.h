// Private to core/models: LibTorch building blocks shared by the model zoo, with the precision
// policy of the official evaluations (fp32, or bf16 autocast: bf16 GEMMs, fp32 norms and residual).
#pragma once

#include <cstdint>

#include "engine/torch_pch.h"

namespace gatescope::core {

/// fp32 everywhere, or the bf16-autocast emulation (GEMM inputs and outputs in bf16).
struct Precision {
    bool bf16 = false;
    torch::ScalarType activation() const { return bf16 ? torch::kBFloat16 : torch::kFloat32; }
};

/// y = x W^T (+ b). Keeps a bf16 copy of the weight once bf16 is first used. On the CPU the bf16
/// GEMM is emulated in fp32 from bf16-rounded operands; on CUDA it is cuBLAS's bf16 GEMM (fp32
/// accumulation, bf16 output), which is what CUDA autocast runs.
struct Linear {
    torch::Tensor weight;  ///< [out, in] float32
    torch::Tensor bias;    ///< [out] or undefined
    torch::Tensor operator()(const torch::Tensor& x, const Precision& precision) const;
    /// A copy with weight and bias on `device` (no cached bf16 copy).
    Linear to(const torch::Device& device) const;

private:
    mutable torch::Tensor m_weightBf16, m_biasBf16;
};

/// RMSNorm over the last dimension, computed in fp32: x * rsqrt(mean(x^2) + eps) * weight.
/// `weight` may be undefined (no scale). Output in `outDtype`.
torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps,
                      torch::ScalarType outDtype);
/// Per-group RMSNorm of [N, G*D] (groups of D contiguous channels), weight [G*D] or undefined.
torch::Tensor groupRmsNorm(const torch::Tensor& x, int64_t groups, const torch::Tensor& weight,
                           double eps, torch::ScalarType outDtype);
/// LayerNorm over the last dimension in fp32 with optional weight and bias.
torch::Tensor layerNorm(const torch::Tensor& x, const torch::Tensor& weight,
                        const torch::Tensor& bias, double eps, torch::ScalarType outDtype);

/// Rotary tables for positions [0, n): cos and sin [n, dim/2] in fp32, inv_freq = base^(-2i/dim).
std::pair<torch::Tensor, torch::Tensor> rotaryTables(int64_t n, int64_t dim, double base);
/// Non-interleaved ("rotate half", NeoX) rotary on x [N, H, D] computed in fp32, returned in
/// x's dtype. Only the first 2 * cos.size(1) channels rotate.
torch::Tensor applyRotaryHalf(const torch::Tensor& x, const torch::Tensor& cos,
                              const torch::Tensor& sin);

/// Data-dependent token shift: out_t = alpha_t * x_{t-1} + (1 - alpha_t) * x_t with x_{-1} = 0.
/// x [N, H, D]; alpha [N, H] fp32. Computed in fp32, returned in x's dtype.
torch::Tensor tokenShift(const torch::Tensor& x, const torch::Tensor& alpha);

/// Rounds through `dtype` and back to float32 (emulates storage in a narrower type).
torch::Tensor roundTrip(const torch::Tensor& x, torch::ScalarType dtype);

}  // namespace gatescope::core
