// Finest level of the decay map exp(c_i - c_j) straight from c (no q.k): the map is separable,
// so a cell whose token pairs are all allowed needs only statistics of its row block and its
// column block. Per token block B (2^level tokens; row and column blocks are the same blocks):
//   hi_B = max c, A_B = sum exp(c - hi_B), lo_B = min c, Z_B = sum exp(lo_B - c);
// then a full cell (R, C) has sum A_R Z_C exp(hi_R - lo_C) and max exp(hi_R - lo_C): O(1) per
// cell. Diagonal cells take a running sum along their rows (O(cells)); cells on the window's
// edge sum their allowed pairs one by one; cells with no allowed pair are 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/pyramid_launch.h"

namespace gatescope::kernels::cuda::detail {
namespace {

struct BlockStats {
    float hi, a, lo, z;
};

__global__ void blockStatsKernel(DecayPyramidParams p, int heads, BlockStats* stats) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= heads * p.side) return;
    const int64_t head = idx / p.side, b = idx % p.side;
    const float* c = p.c + head * p.vecHead;
    const int64_t j0 = b << p.level, j1 = min((b + 1) << p.level, p.n);
    float hi = c[j0], lo = c[j0];
    for (int64_t j = j0 + 1; j < j1; ++j) {
        hi = fmaxf(hi, c[j]);
        lo = fminf(lo, c[j]);
    }
    float a = 0.f, z = 0.f;
    for (int64_t j = j0; j < j1; ++j) {
        a += expf(c[j] - hi);
        z += expf(lo - c[j]);
    }
    stats[idx] = {hi, a, lo, z};
}

__device__ void decayCell(const DecayPyramidParams& p, const BlockStats* stats, int64_t head,
                          int64_t R, int64_t C) {
    const int64_t side = p.side, idx = (head * side + R) * side + C;
    const int64_t window = p.window;
    const int64_t i0 = R << p.level, i1 = min((R + 1) << p.level, p.n);
    const int64_t j0 = C << p.level, j1 = min((C + 1) << p.level, p.n);
    double total = 0.0;
    float mx = 0.f;
    const bool outside = C > R || (window > 0 && j1 - 1 < i0 - window + 1);
    const bool full = C < R && (window <= 0 || j0 >= i1 - window);
    const float* c = p.c ? p.c + head * p.vecHead : nullptr;
    if (outside) {
    } else if (full) {
        if (!c) {
            total = double(i1 - i0) * double(j1 - j0);
            mx = 1.f;
        } else {
            const BlockStats r = stats[head * side + R], col = stats[head * side + C];
            mx = expf(r.hi - col.lo);
            total = double(r.a) * double(col.z) * double(mx);
        }
    } else if (R == C && (window <= 0 || window >= (int64_t{1} << p.level))) {
        // A diagonal cell that the window does not cut: every j <= i of the block. The row sums
        // T_i = sum_{j0 <= j <= i} exp(c_i - c_j) follow T_i = exp(c_i - c_(i-1)) T_(i-1) + 1,
        // and the largest pair of row i is exp(c_i - min_(j <= i) c_j): O(cells) rather than
        // O(cells^2), which would hold every wave of the grid on its diagonal threads.
        if (!c) {
            const double rows = double(i1 - i0);
            total = rows * (rows + 1) / 2;
            mx = 1.f;
        } else {
            float row = 0.f, lowest = c[i0];
            for (int64_t i = i0; i < i1; ++i) {
                row = i == i0 ? 1.f : fmaf(expf(c[i] - c[i - 1]), row, 1.f);
                lowest = fminf(lowest, c[i]);
                total += row;
                mx = fmaxf(mx, expf(c[i] - lowest));
            }
        }
    } else {
        for (int64_t i = i0; i < i1; ++i) {
            float row = 0.f;
            for (int64_t j = j0; j < j1; ++j) {
                if (j > i || (window > 0 && j <= i - window)) continue;
                const float v = c ? expf(c[i] - c[j]) : 1.f;
                row += v;
                mx = fmaxf(mx, v);
            }
            total += row;
        }
    }
    p.mean[idx] = static_cast<float>(total / double(cellArea(R, C, p.level, p.n)));
    p.max[idx] = mx;
}

// Grid: x covers a row of cells, y strides over the rows, z is the head (no 64-bit divisions).
__global__ void decayCellsKernel(DecayPyramidParams p, const BlockStats* stats) {
    const int64_t side = p.side, head = blockIdx.z;
    const int64_t C = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (C >= side) return;
    for (int64_t R = blockIdx.y; R < side; R += gridDim.y)
        decayCell(p, stats, head, R, C);
}

}  // namespace

std::string launchDecayPyramid(const DecayPyramidParams& params, int heads, cudaStream_t stream) {
    BlockStats* stats = nullptr;
    if (params.c) {
        const size_t bytes = sizeof(BlockStats) * size_t(heads) * size_t(params.side);
        const cudaError_t error = cudaMallocAsync(reinterpret_cast<void**>(&stats), bytes, stream);
        if (error != cudaSuccess) return cudaMessage(error, "decay pyramid scratch");
        blockStatsKernel<<<blocksFor(heads * params.side, 256), 256, 0, stream>>>(params, heads,
                                                                                  stats);
    }
    const dim3 grid(blocksFor(params.side, 256),
                    static_cast<unsigned>(std::min<int64_t>(params.side, 65535)),
                    static_cast<unsigned>(heads));
    decayCellsKernel<<<grid, 256, 0, stream>>>(params, stats);
    std::string result = lastLaunchError("decay pyramid launch");
    if (stats) {
        const cudaError_t error = cudaFreeAsync(stats, stream);
        if (result.empty() && error != cudaSuccess)
            result = cudaMessage(error, "decay pyramid free");
    }
    return result;
}

}  // namespace gatescope::kernels::cuda::detail
