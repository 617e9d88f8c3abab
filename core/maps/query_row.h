// What one token reads: the exact attention row of a query over keys 0..query, its strongest keys,
// and (for layers with a score and a gate) the split of each logit into its content part (what
// the query and key alone give) and its forgetting part (what the decay takes away). Computed
// from the stored factors through the same TileSource as every tile; UI-free, so the viewer's
// hover read-out and the Python module share it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/maps/trace_head.h"
#include "data/common/result.h"

namespace gatescope::core {

/// One query's row. Every vector has query + 1 entries, one per key j in [0, query]; keys the
/// layer does not allow (outside a window, in an earlier packed document) have attention 0,
/// logit -inf, and NaN content and forget.
struct QueryRow {
    int64_t query = 0;
    std::vector<float> attention;  ///< A[query, j], exactly as the tiles have it
    /// The pre-normalization score in the family's log space (TileSource's Logit map); empty
    /// where the family has none (GSA's slot memory).
    std::vector<float> logit;
    /// logit = content + forget. content: the score without any gate (scale q.k; p log(|scale
    /// q.k| + eps) for power attention). forget: what the decay adds, <= 0 for a decay that
    /// only forgets (c_query - c_j for the scalar families; for Wall the change the per-channel
    /// and scalar gates make to the logit). Both empty for layers without decay and for GSA.
    std::vector<double> content;
    std::vector<double> forget;
    /// The keys of the largest attention weights, strongest first (ties: the earlier key), at
    /// most the k asked for and never a disallowed key; topWeights[i] = attention[topKeys[i]].
    std::vector<int64_t> topKeys;
    std::vector<float> topWeights;
};

/// The row of `query` in `head` with its `topK` strongest keys. Blocking, O(query x head dim);
/// thread-safe (the head is immutable). Errors: query outside [0, N) or topK < 0 (Usage), a
/// head whose factors cannot give attention (Missing).
Result<QueryRow> queryRow(const TraceHead& head, int64_t query, int topK);

}  // namespace gatescope::core
