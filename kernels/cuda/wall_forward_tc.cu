// wallForward on tensor cores (contract: wall_power_cuda.h): which batches qualify, the anchored
// keys k_j exp(P_last - P_j) it writes into the caller's workspace (last = the final key of j's
// 64-key tile; every factor <= 1), and the launch of the wgmma kernel's Wall instances
// (attention_forward_wgmma.cu), which rescale those keys per tile and query block.
#include <cuda_bf16.h>

#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/row_block.cuh"

namespace gatescope::kernels::cuda {
namespace detail {
namespace {

/// Query heads per anchored-key head: heads sharing both their k/v head and their gate head.
int keyGroupOf(const WallBatch& b) {
    if (b.kvGroup % b.gateGroup == 0) return b.gateGroup;
    if (b.gateGroup % b.kvGroup == 0) return b.kvGroup;
    return 1;
}

struct AnchorParams {
    const __nv_bfloat16* k;
    int64_t kHead, kRow;
    const float* p;
    int64_t pHead, pRow;
    int gated, n, dk, keyHeads, keyGroup, kvGroup, gateGroup;
    __nv_bfloat16* out;  // [keyHeads][n][dk]
};

/// One 8-channel chunk of one key row a thread (grid-stride): fp32 products, one rounding.
__global__ void anchorWallKeys(AnchorParams a) {
    const int chunks = a.dk / 8;
    const int64_t total = int64_t(a.keyHeads) * a.n * chunks;
    for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
         idx += int64_t(gridDim.x) * blockDim.x) {
        const int ch = static_cast<int>(idx % chunks);
        const int j = static_cast<int>((idx / chunks) % a.n);
        const int hh = static_cast<int>(idx / (int64_t(chunks) * a.n));
        const int h = hh * a.keyGroup;
        const int last = min(j / kWallTile * kWallTile + kWallTile - 1, a.n - 1);
        const float* P = a.p + (h / a.gateGroup) * a.pHead;
        uint4 x = *reinterpret_cast<const uint4*>(a.k + (h / a.kvGroup) * a.kHead +
                                                  int64_t(j) * a.kRow + ch * 8);
        __nv_bfloat162* w = reinterpret_cast<__nv_bfloat162*>(&x);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            float2 v = __bfloat1622float2(w[e]);
            const int c = ch * 8 + 2 * e;
            if (c < a.gated)
                v.x *= __expf(P[int64_t(last) * a.pRow + c] - P[int64_t(j) * a.pRow + c]);
            if (c + 1 < a.gated)
                v.y *= __expf(P[int64_t(last) * a.pRow + c + 1] - P[int64_t(j) * a.pRow + c + 1]);
            w[e] = __float22bfloat162_rn(v);
        }
        *reinterpret_cast<uint4*>(a.out + (int64_t(hh) * a.n + j) * a.dk + ch * 8) = x;
    }
}

/// FlashParams of a batch the tensor-core path takes (k still the raw keys), else false.
bool tensorCoreWallParams(const WallBatch& b, const ForwardOutputs& o,
                          const GatedForwardOptions& options, FlashParams& p) {
    if (b.dtype != DType::BF16 || !options.roundProbsToBf16 || b.n > (int64_t{1} << 30) ||
        (b.gatedChannels > 0 && !b.logDecayCumsum) || !hasSm90aCode())
        return false;
    const AdditiveDecayBatch flash = additiveDecayShape(b);
    p = flashParams(flash, o);
    if (!tensorCoreBatch(flash, p, ForwardConfig{}, o)) return false;
    p.cGroup = b.gateGroup;
    p.wall.p = b.logDecayCumsum;
    p.wall.gated = b.gatedChannels;
    p.wall.pRow = rowStrideOr(b.pRowStride, b.gatedChannels);
    p.wall.pHead = rowStrideOr(b.pHeadStride, b.n * p.wall.pRow);
    p.wall.keyGroup = keyGroupOf(b);
    p.wall.kRaw = b.k;
    p.wall.kRawHead = p.kHead;
    p.wall.kRawRow = p.kRow;
    return true;
}

}  // namespace

bool tryWallTensorCores(const WallBatch& b, const ForwardOutputs& o,
                        const GatedForwardOptions& options, cudaStream_t stream,
                        std::string& result) {
    FlashParams p;
    if (!b.workspace || !tensorCoreWallParams(b, o, options, p)) return false;
    if (reinterpret_cast<uintptr_t>(b.workspace) % 16 != 0) {
        result = "wallForward: workspace must be 16-byte aligned";
        return true;
    }
    AnchorParams a{static_cast<const __nv_bfloat16*>(b.k),
                   p.kHead,
                   p.kRow,
                   b.logDecayCumsum,
                   p.wall.pHead,
                   p.wall.pRow,
                   b.gatedChannels,
                   static_cast<int>(b.n),
                   b.dk,
                   b.heads / p.wall.keyGroup,
                   p.wall.keyGroup,
                   b.kvGroup,
                   b.gateGroup,
                   static_cast<__nv_bfloat16*>(b.workspace)};
    const int64_t chunks = int64_t(a.keyHeads) * a.n * (a.dk / 8);
    const int threads = 256;
    const int64_t grid = std::min<int64_t>((chunks + threads - 1) / threads, 65535 * 8);
    anchorWallKeys<<<static_cast<unsigned>(grid), threads, 0, stream>>>(a);
    result = lastLaunchError("wallForward anchored keys");
    if (!result.empty()) return true;
    p.k = b.workspace;
    p.kRow = b.dk;
    p.kHead = b.n * b.dk;
    result = launchWgmmaWall(p, b.heads, b.dk, stream);
    return true;
}

}  // namespace detail

size_t wallWorkspaceBytes(const WallBatch& batch, const ForwardOutputs& outputs,
                          const GatedForwardOptions& options) {
    detail::FlashParams unused;
    if (!detail::tensorCoreWallParams(batch, outputs, options, unused)) return 0;
    return size_t(batch.heads / detail::keyGroupOf(batch)) * size_t(batch.n) * batch.dk * 2;
}

bool wallUsesTensorCores(const WallBatch& batch, const ForwardOutputs& outputs,
                         const GatedForwardOptions& options) {
    detail::FlashParams unused;
    return batch.workspace && detail::tensorCoreWallParams(batch, outputs, options, unused);
}

}  // namespace gatescope::kernels::cuda
