// Private to kernels/cuda: the kernels that write the finest level of a pyramid, which
// tile_pyramid.cu's buildPyramids dispatches to: the attention map on tensor cores
// (attention_pyramid_mma.cu) and the decay map from c alone (decay_pyramid.cu); and the pooling
// of the coarser levels, shared with the Wall and power pyramids (gated_pyramid.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"

namespace gatescope::kernels::cuda::detail {

/// A batch of heads' attention factors and the finest level they reduce into. Strides in
/// elements, already resolved. Head h reads q + h * qHead, k + (h / kvGroup) * kHead, and
/// c (may be null: no decay) and lse at + h * vecHead.
struct AttentionPyramidParams {
    const void* q;
    const void* k;
    const float* c;
    const float* lse;
    int64_t n, window;
    int64_t qRow, kRow, qHead, kHead, vecHead;
    int kvGroup;
    float scale;
    int level;     ///< cells of 2^level x 2^level tokens, level >= kMinMmaPyramidLevel
    int64_t side;  ///< ceil(n / 2^level)
    float* mean;   ///< heads x side x side, zeroed by the caller: cell means
    float* max;    ///< heads x side x side, zeroed by the caller: cell maxima
};

inline constexpr int kMinMmaPyramidLevel = 4;

/// True when launchAttentionPyramidMma takes this shape: 16-bit q and k, head dim 64 or 128, row
/// strides and pointers 16-byte aligned, level >= kMinMmaPyramidLevel, n <= 2^30.
bool attentionPyramidMmaFits(const AttentionPyramidParams& params, int d, DType dtype);

/// Writes the finest level's cell means and maxima of `heads` heads (mma.sync, one pass over the
/// keys per 128 query rows). Returns "sm80" when the build has no sm_80+ code for the device,
/// else empty or the CUDA error.
std::string launchAttentionPyramidMma(const AttentionPyramidParams& params, int heads, int d,
                                      DType dtype, cudaStream_t stream);

/// A batch of heads' log-decay cumsums (head h at c + h * vecHead; null: no decay, every
/// allowed pair 1) and the finest level of the decay map they reduce into.
struct DecayPyramidParams {
    const float* c;
    int64_t n, window, vecHead;
    int level;
    int64_t side;
    float* mean;  ///< heads x side x side: cell means (every cell written)
    float* max;   ///< heads x side x side: cell maxima (every cell written)
};

/// Writes the decay map's finest level for `heads` heads. Stream-ordered scratch of 16 bytes per
/// token block and head. Returns empty or the CUDA error.
std::string launchDecayPyramid(const DecayPyramidParams& params, int heads, cudaStream_t stream);

/// Pools levels finestLevel + 1 .. coarsestLevel from the finest (maxOut[0], meanOut[0], already
/// written) for `heads` heads: max of the four children, mean weighted by the tokens each covers.
/// Returns empty or the CUDA error of a launch.
std::string coarsenLevels(int64_t n, int heads, int finestLevel, int coarsestLevel,
                          float* const* maxOut, float* const* meanOut, cudaStream_t stream);

}  // namespace gatescope::kernels::cuda::detail
