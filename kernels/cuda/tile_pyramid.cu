// Pyramid levels on the GPU for the additive log-decay family, from the O(N) factors (q, k, c,
// lse). buildPyramids writes the finest level through attention_pyramid_mma.cu (tensor cores),
// decay_pyramid.cu (from c alone) or the generic kernel here, which reduces each 64 x 64 block of
// map values (block_values.cuh) on chip into the finest level's cells; the full-resolution map is
// never written. Coarser levels are pooled from the finest.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/block_pool.cuh"
#include "kernels/cuda/block_values.cuh"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/pyramid_launch.h"

namespace gatescope::kernels::cuda {
namespace {

using detail::asStream;
using detail::blocksFor;
using detail::cellArea;
using detail::lastLaunchError;
using namespace detail::blocks;

// Finest-level cells: mean and max (float bits, values >= 0, so integer order is float order).
// Each CTA reduces one 64 x 64 block of the band into its cells; blockIdx.z is the head (its
// cells at mean, maxGrid + head * side^2).
template <class T, bool Mma>
__global__ void __launch_bounds__(kThreads)
    pyramidKernel(Factors batch, MapKind kind, int level, int64_t side, float* mean,
                  float* maxGrid) {
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    // Skip blocks with no allowed cell: above the diagonal or left of the window band.
    if (bc > br + kEdge - 1) return;
    if (batch.window > 0 && bc + kEdge - 1 < br - batch.window + 1) return;
    const Factors f = headOf<T>(batch, blockIdx.z);
    mean += int64_t(blockIdx.z) * side * side;
    maxGrid += int64_t(blockIdx.z) * side * side;
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    if constexpr (Mma)
        blockValuesMma<T>(f, kind, br, bc, stage, vals);
    else
        blockValues<T>(f, kind, br, bc, stage, vals);

    poolBlock(vals, stage, br, bc, level, side, f.n, mean, maxGrid);
}

// Level `level` + 1 from level `level` (both for every head, stored one after another, head h
// at h * side^2): the max of the four children, and their mean weighted by the tokens each
// covers. Grid: x covers a row of cells, y strides over the rows, z is the head.
__global__ void coarsenKernel(const float* mean, const float* maxGrid, int64_t side, int level,
                              int64_t n, float* upMean, float* upMax, int64_t upSide) {
    const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= upSide) return;
    mean += blockIdx.z * side * side;
    maxGrid += blockIdx.z * side * side;
    for (int64_t r = blockIdx.y; r < upSide; r += gridDim.y) {
        float s = 0.f, m = 0.f;
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
                const int64_t rr = 2 * r + y, cc = 2 * c + x;
                if (rr < side && cc < side) {
                    s += mean[rr * side + cc] * cellArea(rr, cc, level, n);
                    m = fmaxf(m, maxGrid[rr * side + cc]);
                }
            }
        const int64_t idx = (blockIdx.z * upSide + r) * upSide + c;
        upMean[idx] = s / cellArea(r, c, level + 1, n);
        upMax[idx] = m;
    }
}

// Writes the finest level's cell means into `mean` and maxima into `maxGrid` (heads x side^2
// each): the decay map from c alone, the attention map on tensor cores where the shape allows,
// else the generic block kernel.
std::string finestLevelCells(const Factors& f, DType dtype, MapKind kind, int level, int64_t side,
                             int heads, float* mean, float* maxGrid, cudaStream_t s) {
    if (kind == MapKind::Decay) {
        detail::DecayPyramidParams params{};
        params.c = f.c;
        params.n = f.n;
        params.window = f.window;
        params.vecHead = f.vecHead;
        params.level = level;
        params.side = side;
        params.mean = mean;
        params.max = maxGrid;
        return detail::launchDecayPyramid(params, heads, s);
    }
    // The attention kernels write only the cells they visit (causal, inside the window).
    cudaMemsetAsync(mean, 0, sizeof(float) * heads * side * side, s);
    cudaMemsetAsync(maxGrid, 0, sizeof(float) * heads * side * side, s);
    detail::AttentionPyramidParams params{};
    params.q = f.q;
    params.k = f.k;
    params.c = f.c;
    params.lse = f.lse;
    params.n = f.n;
    params.window = f.window;
    params.qRow = f.qRow;
    params.kRow = f.kRow;
    params.qHead = f.qHead;
    params.kHead = f.kHead;
    params.vecHead = f.vecHead;
    params.kvGroup = f.kvGroup;
    params.scale = f.scale;
    params.level = level;
    params.side = side;
    params.mean = mean;
    params.max = maxGrid;
    if (detail::attentionPyramidMmaFits(params, f.dk, dtype)) {
        std::string result = detail::launchAttentionPyramidMma(params, heads, f.dk, dtype, s);
        if (result != "sm80") return result;
    }
    const int64_t blocks = (f.n + kEdge - 1) / kEdge;
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(blocks),
                    static_cast<unsigned>(heads));
    detail::withElementType(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, float>) {
            // Tensor cores where the build has sm_80+ code for this device.
            cudaFuncAttributes attributes{};
            if (cudaFuncGetAttributes(&attributes, pyramidKernel<T, true>) == cudaSuccess &&
                attributes.ptxVersion >= 80) {
                pyramidKernel<T, true>
                    <<<grid, kThreads, 0, s>>>(f, kind, level, side, mean, maxGrid);
                return 0;
            }
            cudaGetLastError();
        }
        pyramidKernel<T, false><<<grid, kThreads, 0, s>>>(f, kind, level, side, mean, maxGrid);
        return 0;
    });
    return lastLaunchError("buildPyramid finest level");
}

}  // namespace

namespace detail {

std::string coarsenLevels(int64_t n, int heads, int finestLevel, int coarsestLevel,
                          float* const* maxOut, float* const* meanOut, cudaStream_t s) {
    int64_t levelSide = pyramidSide(n, finestLevel);
    for (int level = finestLevel; level < coarsestLevel; ++level) {
        const int idx = level - finestLevel;
        const int64_t up = pyramidSide(n, level + 1);
        const dim3 grid(blocksFor(up, 256), static_cast<unsigned>(std::min<int64_t>(up, 65535)),
                        static_cast<unsigned>(heads));
        coarsenKernel<<<grid, 256, 0, s>>>(meanOut[idx], maxOut[idx], levelSide, level, n,
                                           meanOut[idx + 1], maxOut[idx + 1], up);
        if (std::string e = lastLaunchError("buildPyramid coarsen"); !e.empty()) return e;
        levelSide = up;
    }
    return {};
}

}  // namespace detail

int64_t pyramidSide(int64_t n, int level) {
    if (n <= 0) return 0;
    return ((n - 1) >> level) + 1;
}

std::string buildPyramid(const DeviceHeadFactors& head, MapKind kind, int finestLevel,
                         int coarsestLevel, float* const* maxOut, float* const* meanOut,
                         void* stream) {
    return buildPyramids(head, PyramidHeads{}, kind, finestLevel, coarsestLevel, maxOut, meanOut,
                         stream);
}

std::string buildPyramids(const DeviceHeadFactors& head, const PyramidHeads& batch, MapKind kind,
                          int finestLevel, int coarsestLevel, float* const* maxOut,
                          float* const* meanOut, void* stream) {
    if (kind == MapKind::Logit) return "buildPyramid: no pyramid of the logit map";
    if (std::string e = checkFactors(head, kind); !e.empty()) return "buildPyramid: " + e;
    if (finestLevel < 0 || coarsestLevel < finestLevel || coarsestLevel > 62)
        return "buildPyramid: bad level range";
    if (batch.heads < 1 || batch.heads > 65535 || batch.kvGroup < 1)
        return "buildPyramid: bad head batch";
    const int64_t n = head.n;
    if (n == 0) return {};
    const int64_t blocks = (n + kEdge - 1) / kEdge;
    if (blocks > 65535) return "buildPyramid: n over 4M tokens";
    const int heads = batch.heads;
    const cudaStream_t s = asStream(stream);
    const int64_t side = pyramidSide(n, finestLevel);
    Factors f = toFactors(head);
    f.qHead = batch.qHeadStride ? batch.qHeadStride : n * f.qRow;
    f.kHead = batch.kHeadStride ? batch.kHeadStride : n * f.kRow;
    f.vecHead = batch.vecHeadStride ? batch.vecHeadStride : n;
    f.kvGroup = batch.kvGroup;
    std::string result =
        finestLevelCells(f, head.dtype, kind, finestLevel, side, heads, meanOut[0], maxOut[0], s);
    if (result.empty())
        result = detail::coarsenLevels(n, heads, finestLevel, coarsestLevel, maxOut, meanOut, s);
    return result;
}

}  // namespace gatescope::kernels::cuda
