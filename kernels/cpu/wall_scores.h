// Blocks of Wall Attention's gated dot products, computed without overflow at any length.
//
// For a key block entirely before a query block, one anchor per channel, A = P of the block's
// last key, splits exp(P_i - P_j) = exp(P_i - A) exp(A - P_j) into two factors that are both <= 1
// (P never increases), so the block is a plain GEMM of rescaled rows: the per-tile anchor of the
// official kernel (spec §1.4), with the anchor on the key side. Pairs inside a diagonal block take
// exp(P_i - P_j) <= 1 directly. No factor ever exceeds 1, so nothing overflows at 64k+ tokens;
// factors that underflow belong to pairs whose true weight underflows as well. Sub-blocks also
// end at packed-document boundaries, where P restarts (and so may increase): an anchor never
// spans two documents, and pairs from different documents are never formed.
#pragma once

#include <cstdint>

#include "kernels/cpu/tile_ops.h"
#include "kernels/cpu/wall_head.h"

namespace gatescope::kernels {

/// What the block multiplies: the head's q and k (attention scores), or all-ones rows over the
/// gated channels only (the channel-summed decay sum_{n < dg} exp(P_i,n - P_j,n)).
enum class WallOperands { QueryKey, GatedOnes };

/// Per-thread scratch of wallScoreBlock; sized on first use. Not shared between threads.
struct WallScratch {
    AlignedFloats rows, colsT, tile;
};

/// Block edge wallScoreBlock works in; callers that want the cheap anchored path for every
/// off-diagonal pair align their blocks to it.
inline constexpr int64_t kWallSubBlock = 64;

/// Writes into s (rows x cols, leading dimension lds) the unscaled sum over channels of
/// a[i,n] b[j,n] exp(P[i,n] - P[j,n]) for i in [i0, i0 + rows), j in [j0, j0 + cols), j <= i
/// and j in i's document; other cells get 0. The window, the scalar gate and the scale are the
/// caller's. Requires 0 <= i0, i0 + rows <= n, likewise for j. Memory O(64 x (64 +
/// dk)) floats in `scratch`. Pure function of its inputs apart from the scratch.
void wallScoreBlock(const WallHead& head, WallOperands operands, int64_t i0, int64_t rows,
                    int64_t j0, int64_t cols, float* s, int64_t lds, WallScratch& scratch);

}  // namespace gatescope::kernels
