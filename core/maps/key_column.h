// Who reads one token: the exact attention column of a key over the queries that can see it
// (key..N-1), its strongest readers, and (for heads with a score and a gate) the split of each
// logit into its content and forgetting parts, as core::queryRow has it for a row. Computed from
// the stored factors through the head's TileSource in blocks of rows (a block x 1 tile each), so
// memory is O(N) and never N x N; the work polls a cancel flag between blocks. UI-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/maps/trace_head.h"
#include "data/common/result.h"

namespace gatescope::core {

/// One key's column. Every vector has N - key entries, entry r for query key + r; queries the
/// layer does not let see the key (outside a window, a later packed document) have attention
/// 0, logit -inf and NaN content and forget.
struct KeyColumn {
    int64_t key = 0;
    std::vector<float> attention;  ///< A[key + r, key], exactly as the tiles have it
    std::vector<float> logit;      ///< empty where the family has none (GSA)
    std::vector<double> content;   ///< empty without a split (see QueryRow)
    std::vector<double> forget;
    /// The queries that give the key the most weight, strongest first (ties: the earlier
    /// query), at most the k asked for, never a disallowed query; topWeights[i] is the
    /// attention of topQueries[i] on the key.
    std::vector<int64_t> topQueries;
    std::vector<float> topWeights;
};

/// Default rows per block: 4096 x 1 floats per compute call.
constexpr int64_t kKeyColumnBlock = 4096;

/// The column of `key` in `head` with its `topK` strongest readers. Blocking, O((N - key) x head
/// dim); thread-safe. Errors: key outside [0, N), topK < 0 or blockRows < 1 (Usage), a head
/// without exact attention (Missing), `cancelled` seen set between blocks (Cancelled).
Result<KeyColumn> keyColumn(const TraceHead& head, int64_t key, int topK,
                            const std::atomic<bool>* cancelled = nullptr,
                            int64_t blockRows = kKeyColumnBlock);

}  // namespace gatescope::core
