// Private to kernels/cpu/attention_forward*.cpp: one query block of the blockwise forward, with
// the scratch buffers it needs, so the single-head and multi-head entry points share it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels::detail {

/// Per-worker scratch for forwardQueryBlock, sized once for a head shape and block size:
/// O(block x (dk + dv) + block^2) floats. Not shared between threads.
class ForwardScratch {
public:
    ForwardScratch(int64_t block, int dk, int dv);

    int64_t block, dk, dv, colsPad, dvPad;
    AlignedFloats q;          ///< block x dk, the query rows
    AlignedFloats kT;         ///< dk x colsPad, the key block transposed
    AlignedFloats v;          ///< colsPad x dvPad, the value block
    AlignedFloats s;          ///< block x colsPad, logits, then probabilities
    AlignedFloats acc;        ///< block x dvPad, unnormalized output
    AlignedFloats cKeys;      ///< colsPad, cumulative log-decay of the key block
    std::vector<float> m, l;  ///< block, running max and running sum per row
};

/// Block edge used for a head: options.blockSize clamped to [1, min(max(n, 1), kMaxBlock)], so
/// scratch never exceeds what the head needs.
inline constexpr int64_t kMaxBlock = 1024;
int64_t effectiveBlock(const ForwardOptions& options, int64_t n);

/// Number of query blocks of a head: ceil(n / block).
int64_t queryBlockCount(int64_t n, int64_t block);

/// Which keys of a key block each query row may attend to, and the additive bias: key j of the
/// block is allowed for row i when firstKey(i) <= j0 + j <= i.
struct KeyBlockMask {
    int64_t i0 = 0, rows = 0;  ///< query rows [i0, i0 + rows)
    int64_t j0 = 0, cols = 0;  ///< key columns [j0, j0 + cols)
    int64_t window = 0;        ///< 0: all earlier keys; w > 0: the last w keys
    float scale = 1.0f;        ///< multiplies the raw scores in sc.s
    const float* cQueries =
        nullptr;  ///< cumulative log-decay of the rows (absolute index), or null
    /// Per row r of the block, the first allowed key of query i0 + r (absolute index); when set it
    /// replaces the window rule (Wall: window and packed documents together).
    const int64_t* firstKeys = nullptr;
    int64_t firstKey(int64_t i) const {
        if (firstKeys) return firstKeys[i - i0];
        return window > 0 && i - window + 1 > 0 ? i - window + 1 : 0;
    }
};

/// Copies value rows [j0, j0 + cols) into sc.v (cols x dvPad, zero-padded rows after cols).
void packValues(const float* v, int64_t vRow, int64_t j0, int64_t cols, ForwardScratch& sc);

/// Clears the running max, sum and accumulator before a new query block.
void resetQueryBlock(ForwardScratch& sc);

/// One online-softmax step: turns the raw scores in sc.s (rows x colsPad; sc.cKeys holds the key
/// block's cumulative log-decay, zeros without decay) into probabilities, updates the running max
/// sc.m and sum sc.l, rescales sc.acc and adds P V (sc.v). Shared by every softmax family.
void accumulateKeyBlock(const KeyBlockMask& mask, bool roundProbsToBf16, ForwardScratch& sc);

/// Writes out = acc / l and lse = m + log l (natural log) for rows [i0, i0 + rows).
void finishQueryBlock(int64_t i0, int64_t rows, const ForwardScratch& sc, float* out, float* lse);

/// One unit of multi-head work: a query block of a head and what it costs (key blocks visited).
struct QueryBlockItem {
    int head = 0;
    int64_t queryBlock = 0;
    int64_t cost = 0;
};

/// Runs `run` over contiguous ranges of `items` on up to `threads` workers (0: hardware count),
/// most expensive first (causal rows differ up to n / block times in cost), in chunks of similar
/// cost so one scratch serves a chunk. Returns when all are done; rethrows the first exception.
void scheduleQueryBlocks(
    std::vector<QueryBlockItem> items, int threads,
    const std::function<void(const QueryBlockItem* begin, const QueryBlockItem* end)>& run);

/// How often forwardQueryBlock (and the other families' query-block loops) poll the thread's
/// cancellation test (kernels/cpu/cancel.h): once every this many key blocks.
inline constexpr int64_t kCancelCheckBlocks = 16;

/// Computes rows [qb * block, min((qb + 1) * block, n)) of out and lse. Throws Cancelled when the
/// thread's cancellation test says so (checked every kCancelCheckBlocks key blocks).
void forwardQueryBlock(const AdditiveDecayHead& head, int64_t qb, float* out, float* lse,
                       const ForwardOptions& options, ForwardScratch& scratch);

}  // namespace gatescope::kernels::detail
