// CUDA kernels for the additive log-decay family (Transformer, FoX, GatedFWA): the fused
// instrumented forward (output + natural-log row lse), exact tile recompute, and pyramid levels
// reduced straight from tiles. The API is raw device pointers plus an opaque stream pointer (a
// cudaStream_t passed as void*; nullptr is the legacy default stream), so this header includes
// nothing from CUDA and can be seen by CPU-only code. Only compiled into gatescope_kernels when
// GATESCOPE_HAS_CUDA is defined (GATESCOPE_CUDA=ON and nvcc found).
//
// Same contract as the CPU path (kernels/cpu/attention_forward.h, tile_recompute.h,
// pyramid_builder.h): logits scale q_i.k_j + (c_i - c_j) for allowed keys (j <= i, and
// j >= i - window + 1 when window > 0), softmax per row, lse the natural log of the row sum.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/cpu/tile_source.h"

namespace gatescope::kernels::cuda {

/// Element type of q, k, v and out.
enum class DType { F32, F16, BF16 };

/// One batch of heads. Head h of q/k/v/out starts at base + h * headStride and its row r at
/// + r * rowStride (elements). With kvGroup > 1, q head h reads k/v head h / kvGroup (GQA).
struct AdditiveDecayBatch {
    int heads = 0;    ///< query heads (batch x heads flattened)
    int64_t n = 0;    ///< sequence length
    int dk = 0;       ///< query/key dimension (fast tensor-core path: 64 or 128; others: fallback)
    int dv = 0;       ///< value dimension (fast path: dv == dk)
    int kvGroup = 1;  ///< query heads per key/value head
    DType dtype = DType::BF16;
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    int64_t qHeadStride = 0, qRowStride = 0;
    int64_t kHeadStride = 0, kRowStride = 0;
    int64_t vHeadStride = 0, vRowStride = 0;
    /// Cumulative log-decay c (natural log, fp32), head h at logDecayCumsum + h *
    /// decayHeadStride, contiguous rows; nullptr: no decay (plain softmax attention).
    const float* logDecayCumsum = nullptr;
    int64_t decayHeadStride = 0;
    float scale = 1.0f;
    int64_t window = 0;  ///< 0: all keys j <= i; w > 0: keys i - w + 1 <= j <= i
};

struct ForwardOutputs {
    void* out = nullptr;  ///< same dtype as the inputs, [heads][n][dv] with the strides below
    int64_t outHeadStride = 0, outRowStride = 0;
    float* lse = nullptr;  ///< natural-log row lse, lse + h * lseHeadStride + i; may be nullptr
    int64_t lseHeadStride = 0;
};

/// Which kernel a forward call takes.
enum class ForwardPath { TensorCore, Fallback };

struct ForwardConfig {
    /// Force the simple fallback kernel (for tests and comparison); otherwise the tensor-core
    /// kernel runs when dtype is F16/BF16, dk == dv in {64, 128}, strides are multiples of 8
    /// elements, the pointers 16-byte aligned and the build has sm_80+ device code.
    bool forceFallback = false;
};

/// The path attentionForward would take for this batch.
ForwardPath forwardPath(const AdditiveDecayBatch& batch, const ForwardConfig& config = {});

/// Fused forward: out = softmax(logits) v, lse per row. fp32 accumulation; probabilities are
/// rounded to the input dtype before P.V on the tensor-core path (as FlashAttention does).
/// Asynchronous on `stream`. Returns an empty string on success, else the error (bad sizes, or
/// the CUDA error of the launch).
std::string attentionForward(const AdditiveDecayBatch& batch, const ForwardOutputs& outputs,
                             void* stream, const ForwardConfig& config = {});

/// One head's factors on the device, for tile recompute and pyramids (fp32 or 16-bit q, k).
struct DeviceHeadFactors {
    int64_t n = 0;
    int dk = 0;
    DType dtype = DType::F32;  ///< of q and k
    const void* q = nullptr;
    const void* k = nullptr;
    int64_t qRowStride = 0, kRowStride = 0;  ///< 0 means dk
    const float* logDecayCumsum = nullptr;   ///< nullptr: no decay
    const float* lse = nullptr;              ///< needed for MapKind::Attention
    float scale = 1.0f;
    int64_t window = 0;
};

/// Writes rows [row0, row0 + rows) x cols [col0, col0 + cols) of map `kind` into out (device,
/// rows x cols row-major, leading dimension cols), exactly as kernels::computeTile does on the
/// CPU: disallowed or out-of-range cells 0 (-inf for Logit). Asynchronous on `stream`.
std::string computeTile(const DeviceHeadFactors& head, MapKind kind, int64_t row0, int64_t rows,
                        int64_t col0, int64_t cols, float* out, void* stream);

/// S = ceil(n / 2^level).
int64_t pyramidSide(int64_t n, int level);

/// Pyramid levels [finestLevel, coarsestLevel] of map `kind` (Attention or Decay), computed from
/// the factors in tiles that are reduced on chip into the finest level's cells: the
/// full-resolution N x N map never exists in memory. The attention map runs on tensor cores for
/// 16-bit q, k with head dim 64 or 128 and cells of 16 tokens or more, on a generic kernel
/// otherwise; the decay map comes from c alone. For each level l, maxOut[l - finestLevel]
/// and meanOut[l - finestLevel] are device buffers of S_l x S_l floats (row-major, all cells,
/// upper cells included) receiving the max- and mean-pooled level, with the CPU builder's
/// conventions (disallowed tokens count as 0; mean over the tokens a cell covers); each coarser
/// level is pooled from the one below it. Device memory besides the outputs: 16 bytes per
/// finest cell row for the decay map (stream-ordered allocation), none for the attention map.
/// Asynchronous on `stream` except for that allocation.
std::string buildPyramid(const DeviceHeadFactors& head, MapKind kind, int finestLevel,
                         int coarsestLevel, float* const* maxOut, float* const* meanOut,
                         void* stream);

/// How buildPyramids lays out a batch of heads: head h reads q + h * qHeadStride, k + (h /
/// kvGroup) * kHeadStride, lse and logDecayCumsum + h * vecHeadStride (elements; 0 means n * row
/// stride for q and k, n for the vectors).
struct PyramidHeads {
    int heads = 1;
    int kvGroup = 1;
    int64_t qHeadStride = 0, kHeadStride = 0, vecHeadStride = 0;
};

/// buildPyramid for a batch of heads in one launch per kernel (the grid spans the heads): `head`
/// describes head 0, `batch` where the others are. maxOut[l - finestLevel] and
/// meanOut[l - finestLevel] receive heads x S_l x S_l floats, head h at h * S_l^2.
std::string buildPyramids(const DeviceHeadFactors& head, const PyramidHeads& batch, MapKind kind,
                          int finestLevel, int coarsestLevel, float* const* maxOut,
                          float* const* meanOut, void* stream);

/// Number of CUDA devices visible (0 when there is none or the driver is missing).
int deviceCount();

/// "name (sm_XY, N SMs, PCI 0000:1b:00.0, GPU-<uuid>)" of the current device: the bus id and
/// UUID name the physical GPU whatever CUDA_VISIBLE_DEVICES renumbered. Or the CUDA error.
std::string deviceDescription();

/// Makes visible device `index` the calling thread's current device (cudaSetDevice): the device
/// the kernels' legacy default stream and LibTorch's unindexed CUDA device refer to. "" or the
/// CUDA error.
std::string useDevice(int index);

/// Bytes of the current device's memory in use (total - free, cudaMemGetInfo: every process and
/// allocator cache included), or -1 on error. For benchmarks' peak-memory polling.
int64_t deviceMemoryUsed();

}  // namespace gatescope::kernels::cuda
