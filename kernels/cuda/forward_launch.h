// Private to kernels/cuda: the parameters every forward kernel of the additive log-decay family
// takes, and the launchers attention_forward.cu dispatches to. Strides are in elements and already
// resolved (no zeros meaning "contiguous").
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::kernels::cuda::detail {

/// Gated power attention's logit (wall_power_cuda.h) in place of scale q.k: p log(|scale q.k| +
/// eps) + G_i - G_j with G in `c`; out divides by l + rowSumEps (kPowerRowSumEps). Read only by
/// the wgmma kernel's power instances (launchWgmmaPower).
struct PowerScore {
    float degree = 0.f, scale = 0.f, eps = 0.f, rowSumEps = 0.f;
};

/// Wall Attention's per-channel gates (wall_power_cuda.h) for the wgmma kernel's Wall instances
/// (launchWgmmaWall). FlashParams::k then holds the anchored keys k_j exp(P_l - P_j) (l the last
/// key of j's 64-key tile, anchorWallKeys), one head per `keyGroup` query heads; P is read per
/// gate head (FlashParams::cGroup).
struct WallScore {
    const float* p = nullptr;  ///< P, natural log: gate head g's row t at p + g pHead + t pRow
    int64_t pHead = 0, pRow = 0;
    int gated = 0;     ///< leading gated channels; the rest are plain
    int keyGroup = 1;  ///< query heads per anchored-key head
    /// The keys themselves (k/v head h / kvGroup at kRaw + h kRawHead), for a diagonal tile whose
    /// gates fall more than kWallDiagonalSpan within it (then summed pair by pair).
    const void* kRaw = nullptr;
    int64_t kRawHead = 0, kRawRow = 0;
};

/// Logits the wgmma kernel computes: scale q.k (with the additive decay when c is set), power
/// attention's (PowerScore) or Wall's (WallScore).
enum class Logit { Dot, Power, Wall };

/// Key tile (and query block) of the Wall instances; the anchored keys are anchored per tile of
/// this many keys.
inline constexpr int kWallTile = 64;

/// Largest fall of P (natural log) within a 64-token diagonal tile that the Wall instances
/// factor through one anchor: q exp(P_i - P_i0) and k exp(P_i0 - P_j) then stay within e^-64 and
/// e^64 (bf16 keeps them normal). Wall's soft clamp (spec §1.2, at most 0.86 a token) falls at
/// most 54 over a tile; a steeper tile's logits are summed pair by pair on CUDA cores.
inline constexpr float kWallDiagonalSpan = 64.f;

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
    WallScore wall;
};

/// FlashParams of a batch: strides resolved, one c row per query head, no power score.
FlashParams flashParams(const AdditiveDecayBatch& batch, const ForwardOutputs& outputs);

/// A Wall or power batch's heads as an ungated AdditiveDecayBatch (shape, dtype, pointers,
/// strides and scale), for their paths through the wgmma kernel.
AdditiveDecayBatch additiveDecayShape(const GatedHeads& heads);

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

/// launchWgmma for Wall Attention (params.wall set, params.k the anchored keys) on bf16 operands
/// with probabilities rounded to bf16 (summed unrounded). One warpgroup a CTA, 64 query rows,
/// 64-key tiles: q~ = q exp(P_i - P_i0) once, each earlier tile's keys times exp(P_i0 - P_l)
/// (<= 1) in shared memory. Only where hasSm90aCode(); returns empty or the CUDA error.
std::string launchWgmmaWall(const FlashParams& params, int heads, int d, cudaStream_t stream);

/// wallForward's tensor-core path (wall_forward_tc.cu): when the batch qualifies
/// (wallUsesTensorCores), anchors its keys into the workspace, launches launchWgmmaWall, sets
/// `result` (empty or the CUDA error) and returns true; else returns false.
bool tryWallTensorCores(const WallBatch& batch, const ForwardOutputs& outputs,
                        const GatedForwardOptions& options, cudaStream_t stream,
                        std::string& result);

/// Fallback kernel (attention_forward_fallback.cu): any dk, dv <= kFallbackMaxDim, any dtype.
inline constexpr int kFallbackMaxDim = 256;
std::string launchFallback(const FlashParams& params, int heads, int dk, int dv, DType dtype,
                           cudaStream_t stream);

}  // namespace gatescope::kernels::cuda::detail
