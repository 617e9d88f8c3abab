// Private to core/models: the additive-decay attention of kernels/ on LibTorch tensors: the
// blockwise CPU kernel for CPU tensors, the fused CUDA kernel (kernels/cuda) for CUDA tensors.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/probe.h"
#include "engine/torch_pch.h"

namespace gatescope::core {

struct AttentionOutput {
    torch::Tensor out;  ///< [H, N, Dv] float32, on the inputs' device
    torch::Tensor lse;  ///< [H, N] float32, natural log
};

/// Softmax attention with an additive decay bias c_i - c_j (the Transformer/FoX/GatedFWA family).
/// q [H, N, D]; k [Hkv, N, D]; v [Hkv, N, Dv] (query head h reads kv head h / (H / Hkv));
/// logDecayCumsum [H, N] or undefined (no decay). All float32 (converted if not). window 0: full
/// causal. bf16Probs emulates the bf16 kernels' rounding of P before P.V.
/// On CUDA tensors: kernels::cuda::attentionForward, one pass for out and lse; with bf16Probs the
/// inputs go to the kernel as bf16 (tensor cores at D = 64 or 128; exact, since the bf16 path's
/// q, k, v hold bf16 values), otherwise as fp32 (the exact fallback kernel). Throws ModelError
/// when the kernel fails or the build has no CUDA kernels.
AttentionOutput additiveDecayAttention(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                       double scale, int64_t window, bool bf16Probs, int threads);

/// When q is on CUDA, points record.deviceFactors at q [H, N, D], k [Hkv, N, D], lse [H, N] and
/// logDecayCumsum [H, N] (or undefined), converted to contiguous float32 and kept alive by the
/// record, so the trace can build pyramids on the GPU. No-op for CPU tensors.
void attachDeviceFactors(LayerRecord& record, const torch::Tensor& q, const torch::Tensor& k,
                         const torch::Tensor& lse, const torch::Tensor& logDecayCumsum);

/// Records a layer's named factors ([H, N, ...]) and its log retention ([H, N, C], may be
/// undefined) for `probe`: factors the probe does not want are skipped; the rest become host
/// float32 arrays (LayerRecord::factors, logRetention), or, when the probe takes device arrays and
/// the tensors are on CUDA, stay on the GPU in record.deviceFactors->arrays (float32, or bfloat16
/// for bf16 tensors, whose float32 values are the same), kept alive by the record. Call after
/// attachDeviceFactors.
void recordFactors(LayerRecord& record, const Probe& probe,
                   const std::vector<std::pair<std::string, torch::Tensor>>& factors,
                   const torch::Tensor& logRetention);

/// The factors every additive-decay layer records, named as LayerRecord::factors: "q", "k" from
/// token-major [N, H, D] tensors in their own dtype (bf16 ones stay bf16 on the GPU, which is
/// exact; the host path widens them), "v" [Hkv, N, D] and "lse" [H, N] as given.
std::vector<std::pair<std::string, torch::Tensor>> attentionFactors(const torch::Tensor& q,
                                                                    const torch::Tensor& k,
                                                                    const torch::Tensor& v,
                                                                    const torch::Tensor& lse);

}  // namespace gatescope::core
