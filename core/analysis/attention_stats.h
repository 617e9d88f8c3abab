// Per-head statistics of a traced layer's attention, computed exactly from the stored factors in
// row blocks (memory O(rows x columns-chunk), never N x N): attention mass by distance, row
// entropy, mass on the first token (sinks), argmax distance, the attention horizon of each query,
// and the fraction of key blocks whose decay makes them negligible (what FoX's adaptive computation
// pruning would skip).
#pragma once

#include <atomic>
#include <vector>

#include "core/analysis/position_profile.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

struct AttentionStatsOptions {
    std::vector<int> heads;  ///< empty: all
    int threads = 0;         ///< workers over heads (0: hardware count)
    /// Pruning block edge and log tolerance: a block is negligible when every weight in it is
    /// provably below exp(-(2 B + log N) + logTolerance), B the block's logit bound
    /// scale * max|q_i| * max|k_j| (FoX ACP's threshold; its default tolerance is -10).
    int pruneBlock = 64;
    double logTolerance = -10.0;
    /// Attention horizon: the share of a row's mass its most recent keys must hold, in (0, 1].
    double massShare = 0.9;
    int64_t binWidth = 256;  ///< positions per bin of the horizon's profile
    const std::atomic<bool>* cancel = nullptr;
};

struct HeadAttentionStats {
    int head = 0;
    /// Mean attention mass per distance bin: bin 0 is distance 0, bin k >= 1 holds distances
    /// [2^(k-1), 2^k). Rows sum to (about) 1 over bins for softmax families.
    std::vector<double> massByDistance;
    double meanEntropy = 0;               ///< nats, over rows
    double sinkMass = 0;                  ///< mean weight on token 0 over rows i >= 1
    double meanArgmaxDistance = 0;        ///< mean of i - argmax_j A[i,j]
    double meanDistance = 0;              ///< mean of sum_j A[i,j] (i - j)
    double negligibleBlockFraction = -1;  ///< among causal key blocks; -1 without a decay map
    /// Per query i: the distance i - j of the oldest key among the fewest most recent keys
    /// (j = i, i - 1, ...) whose weights sum to massShare of the row's; 0 when A[i,i] alone does.
    PositionProfile horizon;
};

/// Statistics of every requested head of `layer`. Errors: the layer lacks the factors for exact
/// tiles (Missing, naming the dataset), Cancelled, reader errors.
Result<std::vector<HeadAttentionStats>> attentionStats(const data::TraceReader& reader, int layer,
                                                       const AttentionStatsOptions& options = {});

}  // namespace gatescope::core
