// Exact tile recompute on the GPU (computeTile): any rectangle of the attention, logit or decay
// map, one 64 x 64 block per CTA (block_values.cuh), written straight to the output.
#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/block_values.cuh"
#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda {
namespace {

using detail::asStream;
using detail::blocksFor;
using detail::lastLaunchError;
using namespace detail::blocks;

template <class T>
__global__ void __launch_bounds__(kThreads)
    tileKernel(Factors f, MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
               float* out) {
    __shared__ float stage[2 * kEdge * (kDChunk + 1)];
    __shared__ float vals[kEdge][kEdge + 1];
    const int64_t br = int64_t(blockIdx.y) * kEdge, bc = int64_t(blockIdx.x) * kEdge;
    blockValues<T>(f, kind, row0 + br, col0 + bc, stage, vals);
    for (int idx = threadIdx.x; idx < kEdge * kEdge; idx += kThreads) {
        const int r = idx / kEdge, cc = idx % kEdge;
        if (br + r < rows && bc + cc < cols) out[(br + r) * cols + bc + cc] = vals[r][cc];
    }
}

}  // namespace

std::string computeTile(const DeviceHeadFactors& head, MapKind kind, int64_t row0, int64_t rows,
                        int64_t col0, int64_t cols, float* out, void* stream) {
    if (rows <= 0 || cols <= 0) return {};
    if (std::string e = checkFactors(head, kind); !e.empty()) return "computeTile: " + e;
    if ((rows + kEdge - 1) / kEdge > 65535) return "computeTile: over 4M rows in one tile";
    const Factors f = toFactors(head);
    const dim3 grid(blocksFor(cols, kEdge), blocksFor(rows, kEdge));
    detail::withElementType(head.dtype, [&](auto tag) {
        tileKernel<decltype(tag)>
            <<<grid, kThreads, 0, asStream(stream)>>>(f, kind, row0, rows, col0, cols, out);
        return 0;
    });
    return lastLaunchError("computeTile launch");
}

}  // namespace gatescope::kernels::cuda
