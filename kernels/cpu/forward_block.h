// Private to kernels/cpu/attention_forward*.cpp: one query block of the blockwise forward, with
// the scratch buffers it needs, so the single-head and multi-head entry points share it.
#pragma once

#include <cstdint>
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

/// Computes rows [qb * block, min((qb + 1) * block, n)) of out and lse.
void forwardQueryBlock(const AdditiveDecayHead& head, int64_t qb, float* out, float* lse,
                       const ForwardOptions& options, ForwardScratch& scratch);

}  // namespace gatescope::kernels::detail
