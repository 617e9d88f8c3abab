// CUDA forwards for Wall Attention (per-channel gates inside softmax attention) and gated power
// attention (the attention form), with the same contracts as the CPU kernels:
//   - Wall: kernels/cpu/wall_head.h, wall_forward.h (spec: wall-attention-and-kernels.md §1.3-1.4)
//       s[i,j] = scale sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n])  (n < gatedChannels; P = 0 after)
//       out = softmax(s) v per row, lse = natural-log row log-sum-exp.
//   - Power: kernels/cpu/power_attention.h
//       s[i,j] = p log(|scale q_i.k_j| + eps) + G_i - G_j, m_i = max_j s, l_i = sum_j exp(s - m_i)
//       + kPowerRowSumEps, out_i = sum_j exp(s - m_i) v_j / l_i, logNormalizer_i = m_i + log l_i.
// Both are causal (j <= i) and tiled: a CTA owns 64 query rows, visits 64-key tiles staged in
// shared memory with an online softmax, fp32 arithmetic on CUDA cores; bf16 batches at head dims
// 64 and 128 run on tensor cores instead on sm_90a (wallForward, powerForward below).
// Wall never overflows at any length: the diagonal tile takes exp(P_i - P_j) <= 1 pair by pair,
// and every tile strictly before the query block is a plain dot product of q~ = q exp(P_i - R)
// and k~ = k exp(R - P_j) with the anchor R = P of the block's first query row (the official
// kernel's per-tile anchor, §1.4), both exponents <= 0. The CPU kernel anchors on the key tile's
// last key instead; the two agree to fp32 rounding.
//
// Same conventions as attention_cuda.h: raw device pointers, an opaque stream (a cudaStream_t as
// void*; nullptr is the legacy default stream), errors returned as a string (empty on success).
// The caller owns every buffer; the calls keep no pointer after they return, allocate nothing,
// and only enqueue work on `stream` (asynchronous; synchronize before reading the outputs).
// Thread-safe: calls from several host threads on different outputs do not interfere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"

namespace gatescope::kernels::cuda {

/// Options shared by the Wall and power forwards.
struct GatedForwardOptions {
    /// Round the probabilities to bfloat16 before P.V, as bf16 kernels do (the CPU kernels'
    /// roundProbsToBf16). Wall sums the unrounded weights (like ForwardOptions on the CPU); power
    /// sums the rounded ones (like PowerForwardOptions).
    bool roundProbsToBf16 = false;
};

/// The heads of a Wall or power batch. Head h of q starts at q + h * qHeadStride and its row r at
/// + r * qRowStride (elements of `dtype`; likewise k, v for the k/v head h / kvGroup). Zero
/// strides mean contiguous [heads][n][d].
struct GatedHeads {
    int heads = 0;    ///< query heads (batch x heads flattened)
    int64_t n = 0;    ///< sequence length
    int dk = 0;       ///< query/key dimension
    int dv = 0;       ///< value dimension
    int kvGroup = 1;  ///< query heads per k/v head (GQA)
    /// Query heads per gate head: 1 for per-query-head gates, kvGroup for gates tied to k/v heads.
    int gateGroup = 1;
    DType dtype = DType::F32;  ///< of q, k, v and out
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    int64_t qHeadStride = 0, qRowStride = 0;
    int64_t kHeadStride = 0, kRowStride = 0;
    int64_t vHeadStride = 0, vRowStride = 0;
    float scale = 1.0f;  ///< multiplies q.k (1/sqrt(dk) in the models)
};

/// A batch of Wall heads. Constraints: 1 <= dk, dv <= 256, 0 <= gatedChannels <= dk, heads
/// divisible by kvGroup and gateGroup, n <= 64 x 65535.
struct WallBatch : GatedHeads {
    int gatedChannels = 0;  ///< leading channels of q/k carrying a gate (subdim gating)
    /// P, the natural-log cumulative gates (fp32, non-increasing in t): gate head g's row t at
    /// logDecayCumsum + g * pHeadStride + t * pRowStride, gatedChannels values. Zero strides mean
    /// [gate heads][n][gatedChannels]. May be nullptr only when gatedChannels is 0.
    const float* logDecayCumsum = nullptr;
    int64_t pHeadStride = 0, pRowStride = 0;
    /// Device scratch of wallWorkspaceBytes(batch) bytes (256-byte aligned), owned by the caller
    /// and free until the forward has run on `stream`: it lets the tensor-core kernel run (it
    /// holds the keys anchored per 64-key tile, k exp(P_last - P_j), in bf16). nullptr keeps the
    /// CUDA-core kernel.
    void* workspace = nullptr;
};

/// Wall forward: outputs.out ([heads][n][dv] in `dtype`, strides as in ForwardOutputs) and
/// outputs.lse (natural log; may be nullptr). Asynchronous on `stream`. Returns "" on success,
/// else what is wrong with the batch or the CUDA error of the launch.
/// On an sm_90a device, bf16 batches with roundProbsToBf16, dk == dv in {64, 128} (strides
/// multiples of 8, pointers 16-byte aligned) and a workspace run on tensor cores
/// (wallUsesTensorCores): the official kernel's factorization, q exp(P_i - P_i0) times each
/// earlier tile's anchored keys rescaled by exp(P_i0 - P_last) <= 1, both products on wgmma with
/// those operands rounded to bf16 (as the official kernel rounds them); a diagonal tile whose
/// gates fall more than 64 (natural log) within it is summed pair by pair. All other batches take
/// the fp32 CUDA-core kernel.
std::string wallForward(const WallBatch& batch, const ForwardOutputs& outputs, void* stream,
                        const GatedForwardOptions& options = {});

/// Bytes of WallBatch::workspace the tensor-core kernel needs for this batch (0 when it cannot
/// take the batch on this device, whatever the workspace).
size_t wallWorkspaceBytes(const WallBatch& batch, const ForwardOutputs& outputs,
                          const GatedForwardOptions& options = {});

/// Whether wallForward takes the tensor-core kernel for this batch on the current device.
bool wallUsesTensorCores(const WallBatch& batch, const ForwardOutputs& outputs,
                         const GatedForwardOptions& options = {});

/// A batch of gated power-attention heads. G (cumulative natural-log scalar gate, fp32) of head h
/// is logDecayCumsum + (h / gateGroup) * gHeadStride + t; nullptr means ungated (the models here
/// keep G per k/v head). Constraints: 1 <= dk, dv <= 256, degree even and > 0, heads divisible by
/// kvGroup and gateGroup, n <= 64 x 65535.
struct PowerBatch : GatedHeads {
    const float* logDecayCumsum = nullptr;
    int64_t gHeadStride = 0;  ///< 0: n
    int degree = 2;           ///< p
    float eps = 1e-7f;        ///< inside the log; kernels::kPowerLogEps
};

/// Power forward: outputs.out and outputs.lse, which receives the row's logNormalizer
/// m + log(l) (natural log; may be nullptr). Asynchronous on `stream`; errors as wallForward.
/// On an sm_90a device, bf16 batches with roundProbsToBf16 and dk == dv in {64, 128} (strides
/// multiples of 8, pointers 16-byte aligned) run on tensor cores (powerUsesTensorCores); all
/// others on the fp32 CUDA-core kernel. Both compute the same quantities in fp32.
std::string powerForward(const PowerBatch& batch, const ForwardOutputs& outputs, void* stream,
                         const GatedForwardOptions& options = {});

/// Whether powerForward takes the tensor-core kernel for this batch on the current device.
bool powerUsesTensorCores(const PowerBatch& batch, const ForwardOutputs& outputs,
                          const GatedForwardOptions& options = {});

/// Pyramid levels [finestLevel, coarsestLevel] of a Wall batch's attention or decay map, as the
/// CPU builds them from kernels/cpu/wall_tile_source.h's tiles: attention exp(scale s_ij - lse_i),
/// decay the mean over the gated channels of exp(P_i - P_j) (1 without gated channels). Same
/// outputs and conventions as buildPyramids (attention_cuda.h): maxOut[l - finestLevel] and
/// meanOut[l - finestLevel] receive heads x S_l x S_l floats; N x N never in memory. `lse` is
/// [heads][n] fp32 (natural log, as wallForward writes it), needed for the attention map only; v
/// is not read. Asynchronous on `stream`; errors as wallForward.
std::string buildWallPyramids(const WallBatch& batch, const float* lse, MapKind kind,
                              int finestLevel, int coarsestLevel, float* const* maxOut,
                              float* const* meanOut, void* stream);

/// buildWallPyramids for power attention (kernels/cpu/power_tile_source.h): attention
/// exp(p log(|scale q.k| + eps) + G_i - G_j - logNormalizer_i), decay exp(G_i - G_j).
/// `logNormalizer` is [heads][n] fp32, as powerForward writes it.
std::string buildPowerPyramids(const PowerBatch& batch, const float* logNormalizer, MapKind kind,
                               int finestLevel, int coarsestLevel, float* const* maxOut,
                               float* const* meanOut, void* stream);

/// The heads of a Gated Slot Attention layer, as its trace record stores them (kernels/cpu/
/// gsa_tile_source.h): per query head, contiguous [heads][n][slots] fp32 arrays.
struct GsaBatch {
    int heads = 0;
    int64_t n = 0;
    int slots = 0;
    const float* slotProbs = nullptr;        ///< p, the slot-read distribution
    const float* write = nullptr;            ///< s = 1 - alpha (attention map only)
    const float* logForgetCumsum = nullptr;  ///< G, the cumulative natural-log forget gates
};

/// buildWallPyramids for GSA (kernels/cpu/gsa_tile_source.h's maps): attention
/// sum_j p_tj s_ij exp(G_tj - G_ij), decay sum_j p_tj exp(G_tj - G_ij), for keys i <= t. Every
/// exponent is <= 0 (anchored per key block as Wall's), so any |G| is safe; fp32 arithmetic.
/// Constraints: heads <= 65535, n <= 64 x 65535. Asynchronous on `stream`; errors as wallForward.
std::string buildGsaPyramids(const GsaBatch& batch, MapKind kind, int finestLevel,
                             int coarsestLevel, float* const* maxOut, float* const* meanOut,
                             void* stream);

}  // namespace gatescope::kernels::cuda
