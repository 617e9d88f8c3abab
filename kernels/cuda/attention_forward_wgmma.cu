// The sm_90a forward's instances and launchers: the kernel (wgmma_forward_kernel.cuh, where its
// design is described) for the additive log-decay family, power attention and Wall Attention, the
// variant a batch takes (launchVariant), and the probe for sm_90a code on the device.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/mma_sm90.cuh"
#include "kernels/cuda/tensor_map.h"
#include "kernels/cuda/wgmma_forward_kernel.cuh"
#include "kernels/cuda/wgmma_forward_schedule.cuh"

namespace gatescope::kernels::cuda::detail {
namespace {

using namespace wgmma;

__global__ void probeSm90a(int* out) {
    *out = GATESCOPE_SM90A_CODE;
}

template <class T, int D, bool Decay, Logit L, int WG, bool PP, int BN = 128, int MinBlocks = 1>
std::string launch(const FlashParams& params, int heads, cudaStream_t stream) {
    constexpr size_t smem = smemBytes<D, WG, PP, BN>();
    auto kernel = wgmmaForward<T, D, Decay, L, WG, PP, BN, MinBlocks>;
    cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (error != cudaSuccess) return cudaMessage(error, "wgmmaForward smem attribute");
    const int64_t blocks = (params.n + 64 * WG - 1) / (64 * WG);
    if (blocks * heads > int64_t{0x7fffffff}) return "attentionForward: heads x n too large";
    KvTileMaps maps{};
    if constexpr (PP) {
        const int kvHeads = heads / params.kvGroup;
        std::string failed =
            encodeTileMap(maps.k, params.k, D, params.n, kvHeads, params.kRow, params.kHead, BN);
        if (failed.empty())
            failed = encodeTileMap(maps.v, params.v, D, params.n, kvHeads, params.vRow,
                                   params.vHead, BN);
        if (!failed.empty()) return "wgmmaForward: " + failed;
    }
    kernel<<<static_cast<unsigned>(blocks * heads), 128 * WG, smem, stream>>>(params, maps);
    return lastLaunchError("wgmmaForward launch");
}

}  // namespace

bool hasSm90aCode() {
    static const bool has = [] {
        int device = 0, major = 0, minor = 0;
        if (cudaGetDevice(&device) != cudaSuccess) return false;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
        if (major != 9 || minor != 0) return false;
        int* flag = nullptr;
        int value = 0;
        if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return false;
        probeSm90a<<<1, 1>>>(flag);
        const bool ok =
            cudaMemcpy(&value, flag, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaFree(flag);
        cudaGetLastError();
        return ok && value == 1;
    }();
    return has;
}

/// Instantiates the variant a batch takes: d = 64 ping-pongs from kPingPongMinN keys per query
/// row (a window caps them); a narrow window (kNarrowWindow) over at least 4 windows of tokens
/// takes one warpgroup a CTA; else d = 64 double-buffers tiles of kShortBlockN keys with two
/// warpgroups. d = 128 ping-pongs.
template <class T, bool Decay, Logit L>
std::string launchVariant(const FlashParams& params, int heads, int d, cudaStream_t stream) {
    const int64_t keysPerRow =
        params.window > 0 && params.window < params.n ? params.window : params.n;
    if (d == 64 && keysPerRow >= kPingPongMinN)
        return launch<T, 64, Decay, L, kWarpgroupsPP, true>(params, heads, stream);
    if (d == 64 && keysPerRow <= kNarrowWindow && 4 * keysPerRow <= params.n)
        return launch<T, 64, Decay, L, 1, false, kShortBlockN, 4>(params, heads, stream);
    if (d == 64)
        return launch<T, 64, Decay, L, kWarpgroups, false, kShortBlockN, 2>(params, heads, stream);
    return launch<T, 128, Decay, L, kWarpgroups, true>(params, heads, stream);
}

std::string launchWgmma(const FlashParams& params, int heads, int d, DType dtype,
                        cudaStream_t stream) {
    if (!hasSm90aCode()) return {"sm90a"};
    auto go = [&](auto tag) -> std::string {
        using T = decltype(tag);
        return params.c ? launchVariant<T, true, Logit::Dot>(params, heads, d, stream)
                        : launchVariant<T, false, Logit::Dot>(params, heads, d, stream);
    };
    return dtype == DType::F16 ? go(__half{}) : go(__nv_bfloat16{});
}

std::string launchWgmmaPower(const FlashParams& params, int heads, int d, cudaStream_t stream) {
    using B = __nv_bfloat16;
    return params.c ? launchVariant<B, true, Logit::Power>(params, heads, d, stream)
                    : launchVariant<B, false, Logit::Power>(params, heads, d, stream);
}

std::string launchWgmmaWall(const FlashParams& params, int heads, int d, cudaStream_t stream) {
    using B = __nv_bfloat16;
    if (d == 64)
        return launch<B, 64, false, Logit::Wall, 1, false, kWallTile, 4>(params, heads, stream);
    return launch<B, 128, false, Logit::Wall, 1, false, kWallTile, 2>(params, heads, stream);
}

}  // namespace gatescope::kernels::cuda::detail
