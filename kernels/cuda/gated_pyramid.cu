// Pyramid levels of Wall and power attention on the GPU (API: wall_power_cuda.h), from the O(N)
// factors, with the generic 64 x 64 block structure of tile_pyramid.cu: each CTA computes one
// block of map values on chip and pools it into the finest level (block_pool.cuh); coarser levels
// are pooled from the finest. The full-resolution map never exists in memory.
//  - Wall: the CPU's wall_scores.h blocks. A key block strictly before the query block is a plain
//    dot product of q exp(P_i - A) and k exp(A - P_j), A = P of the key block's last key (both
//    factors <= 1); the diagonal block takes exp(P_i - P_j) <= 1 pair by pair. fp32 FMA.
//  - Power: the dot products of block_values.cuh, then exp(p log(|scale q.k| + eps) + G_i - G_j
//    - logNormalizer_i) per cell; the decay map exp(G_i - G_j) is decay_pyramid.cu's.
//  - GSA: Wall's blocks with the slot-read probabilities p as q, the write strengths s as k (ones
//    for the decay map), G as P over all slots, and the channel sum itself as the cell value.
#include <string>

#include "kernels/cuda/block_pool.cuh"
#include "kernels/cuda/block_values.cuh"
#include "kernels/cuda/pyramid_launch.h"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::kernels::cuda {
namespace {

using namespace detail;
using namespace detail::blocks;

struct WallFactors {
    const void* q;
    const void* k;
    int64_t qRow, kRow, qHead, kHead;
    int kvGroup;
    const float* p;  // P of gate head 0: row t at p + t * pRow
    int64_t pRow, pHead;
    int gateGroup, gated;
    const float* lse;  // [heads][n]
    int64_t n;
    int dk;
    float scale;
    bool gsa;  // GSA's forms: q = p, k = s (decay: ones), the sum itself as the value
};

// One 64 x 64 block of Wall's attention (decay == false) or decay map into vals. For the decay
// map the operands are ones over the gated channels: the channel sum of exp(P_i - P_j). GSA
// (f.gsa, all channels gated): the sums of p_i s_j exp(P_i - P_j), or of p_i exp(P_i - P_j).
template <class T>
__device__ void wallBlockValues(const WallFactors& f, int head, bool decay, int64_t r0, int64_t c0,
                                float* stage, float (*vals)[kEdge + 1]) {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const T* q = static_cast<const T*>(f.q) + head * f.qHead;
    const T* k = static_cast<const T*>(f.k) + (head / f.kvGroup) * f.kHead;
    const float* p = f.p ? f.p + (head / f.gateGroup) * f.pHead : nullptr;
    const bool diagonal = r0 == c0;
    const int dim = decay ? f.gated : f.dk;
    const int64_t anchor = min(c0 + kEdge - 1, f.n - 1);
    float(*sq)[kDChunk + 1] = reinterpret_cast<float(*)[kDChunk + 1]>(stage);
    float(*sk)[kDChunk + 1] = sq + kEdge;
    float(*sp)[kDChunk + 1] = sk + kEdge;  // P of the block's rows (diagonal blocks only)
    float dot[4][4] = {};
    for (int d0 = 0; d0 < dim; d0 += kDChunk) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < kEdge * kDChunk; idx += kThreads) {
            const int r = idx / kDChunk, d = idx % kDChunk, ch = d0 + d;
            const int64_t i = r0 + r, j = c0 + r;
            const bool inI = ch < dim && i < f.n, inJ = ch < dim && j < f.n;
            float a = inI ? (decay && !f.gsa ? 1.f : toFloat(q[i * f.qRow + ch])) : 0.f;
            float b = inJ ? (decay ? 1.f : toFloat(k[j * f.kRow + ch])) : 0.f;
            float pi = 0.f;
            if (ch < f.gated) {
                if (diagonal) {
                    pi = inI ? p[i * f.pRow + ch] : 0.f;
                } else {
                    const float pa = p[anchor * f.pRow + ch];
                    if (inI) a *= expf(p[i * f.pRow + ch] - pa);
                    if (inJ) b *= expf(pa - p[j * f.pRow + ch]);
                }
            }
            sq[r][d] = a;
            sk[r][d] = b;
            sp[r][d] = pi;
        }
        __syncthreads();
        for (int d = 0; d < kDChunk; ++d) {
            float a[4], b[4];
#pragma unroll
            for (int x = 0; x < 4; ++x) {
                a[x] = sq[ty + 16 * x][d];
                b[x] = sk[tx + 16 * x][d];
            }
            if (diagonal) {
                float pa[4], pb[4];
#pragma unroll
                for (int x = 0; x < 4; ++x) {
                    pa[x] = sp[ty + 16 * x][d];
                    pb[x] = sp[tx + 16 * x][d];
                }
#pragma unroll
                for (int y = 0; y < 4; ++y)
#pragma unroll
                    for (int x = 0; x < 4; ++x)  // P_i <= P_j for j <= i; the rest is masked
                        dot[y][x] = fmaf(a[y] * b[x], expf(fminf(pa[y] - pb[x], 0.f)), dot[y][x]);
            } else {
#pragma unroll
                for (int y = 0; y < 4; ++y)
#pragma unroll
                    for (int x = 0; x < 4; ++x)
                        dot[y][x] = fmaf(a[y], b[x], dot[y][x]);
            }
        }
    }
    const float* lse = f.lse ? f.lse + head * f.n : nullptr;
#pragma unroll
    for (int y = 0; y < 4; ++y)
#pragma unroll
        for (int x = 0; x < 4; ++x) {
            const int r = ty + 16 * y, cc = tx + 16 * x;
            const int64_t i = r0 + r, j = c0 + cc;
            float v = 0.f;
            if (i < f.n && j <= i)
                v = f.gsa   ? dot[y][x]
                    : decay ? (f.gated ? dot[y][x] / f.gated : 1.f)
                            : expf(f.scale * dot[y][x] - lse[i]);
            vals[r][cc] = v;
        }
    __syncthreads();
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    wallPyramidKernel(WallFactors f, bool decay, int level, int64_t side, float* mean,
                      float* maxGrid) {
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    if (bc > br) return;  // above the diagonal
    mean += int64_t(blockIdx.z) * side * side;
    maxGrid += int64_t(blockIdx.z) * side * side;
    __shared__ float stage[3 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    wallBlockValues<T>(f, blockIdx.z, decay, br, bc, stage, vals);
    poolBlock(vals, stage, br, bc, level, side, f.n, mean, maxGrid);
}

// Power's attention map: block_values.cuh's logits scale q.k (-inf where not allowed), mapped to
// exp(p log(|scale q.k| + eps) + G_i - G_j - logNormalizer_i) as kernels::computePowerTile does.
template <class T>
__global__ void __launch_bounds__(kThreads)
    powerPyramidKernel(Factors batch, const float* g, int64_t gHead, int gateGroup, int degree,
                       float eps, int level, int64_t side, float* mean, float* maxGrid) {
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    if (bc > br) return;
    const Factors f = headOf<T>(batch, blockIdx.z);
    if (g) g += (blockIdx.z / gateGroup) * gHead;
    mean += int64_t(blockIdx.z) * side * side;
    maxGrid += int64_t(blockIdx.z) * side * side;
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    blockValues<T>(f, MapKind::Logit, br, bc, stage, vals);
    for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
        const int r = idx / kEdge, cc = idx % kEdge;
        const float logit = vals[r][cc];
        if (logit == -INFINITY) {
            vals[r][cc] = 0.f;
            continue;
        }
        const int64_t i = br + r, j = bc + cc;
        const float score = static_cast<float>(degree) * logf(fabsf(logit) + eps);
        const float bias = g ? g[i] - g[j] : 0.f;
        vals[r][cc] = expf(score + bias - f.lse[i]);
    }
    __syncthreads();
    poolBlock(vals, stage, br, bc, level, side, f.n, mean, maxGrid);
}

std::string checkLevels(const char* what, const GatedHeads& b, MapKind kind, int finest,
                        int coarsest) {
    const std::string name = what;
    if (kind == MapKind::Logit) return name + ": no pyramid of the logit map";
    if (finest < 0 || coarsest < finest || coarsest > 62) return name + ": bad level range";
    if (b.heads < 1 || b.heads > 65535 || b.kvGroup < 1 || b.heads % b.kvGroup != 0 ||
        b.gateGroup < 1 || b.heads % b.gateGroup != 0)
        return name + ": bad head batch";
    if (b.n < 0 || (b.n + kEdge - 1) / kEdge > 65535) return name + ": n out of range";
    if (kind == MapKind::Attention && (!b.q || !b.k || b.dk < 1))
        return name + ": the attention map needs q and k";
    return {};
}

Factors qkFactors(const GatedHeads& b, const float* lse) {
    Factors f{};
    f.q = b.q;
    f.k = b.k;
    f.qRow = b.qRowStride ? b.qRowStride : b.dk;
    f.kRow = b.kRowStride ? b.kRowStride : b.dk;
    f.qHead = b.qHeadStride ? b.qHeadStride : b.n * f.qRow;
    f.kHead = b.kHeadStride ? b.kHeadStride : b.n * f.kRow;
    f.kvGroup = b.kvGroup;
    f.lse = lse;
    f.vecHead = b.n;
    f.n = b.n;
    f.dk = b.dk;
    f.scale = b.scale;
    return f;
}

dim3 blockGrid(const GatedHeads& b) {
    const auto blocks = static_cast<unsigned>((b.n + kEdge - 1) / kEdge);
    return dim3(blocks, blocks, static_cast<unsigned>(b.heads));
}

// Wall's pyramid launch; `gsa` selects GSA's forms (WallFactors::gsa), which read no lse.
std::string launchWallPyramids(const char* what, const WallBatch& b, const float* lse, bool gsa,
                               MapKind kind, int finestLevel, int coarsestLevel,
                               float* const* maxOut, float* const* meanOut, void* stream) {
    if (auto e = checkLevels(what, b, kind, finestLevel, coarsestLevel); !e.empty()) return e;
    const std::string name = what;
    if (b.gatedChannels < 0 || b.gatedChannels > b.dk || (b.gatedChannels && !b.logDecayCumsum))
        return name + ": gatedChannels needs P, and at most dk of them";
    if (!gsa && kind == MapKind::Attention && !lse) return name + ": attention needs the lse";
    if (b.n == 0) return {};
    const Factors qk = qkFactors(b, lse);
    WallFactors f{
        qk.q, qk.k, qk.qRow,     qk.kRow,         qk.qHead, qk.kHead, b.kvGroup, b.logDecayCumsum,
        0,    0,    b.gateGroup, b.gatedChannels, lse,      b.n,      b.dk,      b.scale,
        gsa};
    f.pRow = b.pRowStride ? b.pRowStride : b.gatedChannels;
    f.pHead = b.pHeadStride ? b.pHeadStride : b.n * f.pRow;
    const int64_t side = pyramidSide(b.n, finestLevel);
    const cudaStream_t s = asStream(stream);
    cudaMemsetAsync(meanOut[0], 0, sizeof(float) * b.heads * side * side, s);
    cudaMemsetAsync(maxOut[0], 0, sizeof(float) * b.heads * side * side, s);
    withElementType(b.dtype, [&](auto tag) {
        wallPyramidKernel<decltype(tag)><<<blockGrid(b), kThreads, 0, s>>>(
            f, kind == MapKind::Decay, finestLevel, side, meanOut[0], maxOut[0]);
        return 0;
    });
    if (auto e = lastLaunchError(what); !e.empty()) return e;
    return coarsenLevels(b.n, b.heads, finestLevel, coarsestLevel, maxOut, meanOut, s);
}

}  // namespace

std::string buildWallPyramids(const WallBatch& b, const float* lse, MapKind kind, int finestLevel,
                              int coarsestLevel, float* const* maxOut, float* const* meanOut,
                              void* stream) {
    return launchWallPyramids("buildWallPyramids", b, lse, false, kind, finestLevel, coarsestLevel,
                              maxOut, meanOut, stream);
}

std::string buildGsaPyramids(const GsaBatch& b, MapKind kind, int finestLevel, int coarsestLevel,
                             float* const* maxOut, float* const* meanOut, void* stream) {
    if (b.slots < 1) return "buildGsaPyramids: bad head batch";
    if (!b.slotProbs || !b.logForgetCumsum || (kind == MapKind::Attention && !b.write))
        return "buildGsaPyramids: needs slotProbs, logForgetCumsum and (attention) write";
    // Wall's batch: p as q, s as k (not read for the decay map's ones), G as P over all slots.
    WallBatch wall;
    wall.heads = b.heads;
    wall.n = b.n;
    wall.dk = wall.gatedChannels = b.slots;
    wall.q = b.slotProbs;
    wall.k = b.write ? b.write : b.slotProbs;
    wall.logDecayCumsum = b.logForgetCumsum;
    return launchWallPyramids("buildGsaPyramids", wall, nullptr, true, kind, finestLevel,
                              coarsestLevel, maxOut, meanOut, stream);
}

std::string buildPowerPyramids(const PowerBatch& b, const float* logNormalizer, MapKind kind,
                               int finestLevel, int coarsestLevel, float* const* maxOut,
                               float* const* meanOut, void* stream) {
    if (auto e = checkLevels("buildPowerPyramids", b, kind, finestLevel, coarsestLevel); !e.empty())
        return e;
    if (kind == MapKind::Attention && !logNormalizer)
        return "buildPowerPyramids: attention needs the logNormalizer";
    if (b.n == 0) return {};
    const int64_t side = pyramidSide(b.n, finestLevel);
    const int64_t gHead = b.gHeadStride ? b.gHeadStride : b.n;
    const cudaStream_t s = asStream(stream);
    if (kind == MapKind::Decay) {  // exp(G_i - G_j): the additive family's decay map, per head
        DecayPyramidParams params{};
        params.n = b.n;
        params.level = finestLevel;
        params.side = side;
        params.vecHead = gHead;
        // One launch over the gate heads when each query head has its own, else one per head.
        const bool own = b.gateGroup == 1 || !b.logDecayCumsum;
        for (int h = 0; h < (own ? 1 : b.heads); ++h) {
            params.c = b.logDecayCumsum ? b.logDecayCumsum + (h / b.gateGroup) * gHead : nullptr;
            params.mean = meanOut[0] + h * side * side;
            params.max = maxOut[0] + h * side * side;
            if (auto e = launchDecayPyramid(params, own ? b.heads : 1, s); !e.empty()) return e;
        }
    } else {
        cudaMemsetAsync(meanOut[0], 0, sizeof(float) * b.heads * side * side, s);
        cudaMemsetAsync(maxOut[0], 0, sizeof(float) * b.heads * side * side, s);
        const Factors f = qkFactors(b, logNormalizer);
        withElementType(b.dtype, [&](auto tag) {
            powerPyramidKernel<decltype(tag)><<<blockGrid(b), kThreads, 0, s>>>(
                f, b.logDecayCumsum, gHead, b.gateGroup, b.degree, b.eps, finestLevel, side,
                meanOut[0], maxOut[0]);
            return 0;
        });
        if (auto e = lastLaunchError("buildPowerPyramids"); !e.empty()) return e;
    }
    return coarsenLevels(b.n, b.heads, finestLevel, coarsestLevel, maxOut, meanOut, s);
}

}  // namespace gatescope::kernels::cuda
