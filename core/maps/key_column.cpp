#include "core/maps/key_column.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/maps/logit_split.h"

namespace gatescope::core {

namespace {

Error usage(std::string what) {
    return Error{ErrorKind::Usage, std::move(what), {}, {}};
}

/// Fills column[r] for queries [key, N) of `kind`, `block` rows per compute call.
bool computeBlocks(const kernels::TileSource& source, kernels::MapKind kind, int64_t key,
                   int64_t block, const std::atomic<bool>* cancelled, std::vector<float>& out) {
    const int64_t n = source.size();
    out.resize(static_cast<size_t>(n - key));
    for (int64_t i0 = key; i0 < n; i0 += block) {
        if (cancelled && cancelled->load()) return false;
        const int64_t rows = std::min(block, n - i0);
        source.compute(kind, i0, rows, key, 1, out.data() + (i0 - key));
    }
    return true;
}

void topReaders(KeyColumn& col, int topK) {
    std::vector<int64_t> order;
    for (size_t r = 0; r < col.attention.size(); ++r)
        if (col.logit.empty() || std::isfinite(col.logit[r]))
            order.push_back(col.key + static_cast<int64_t>(r));
    const size_t k = std::min(order.size(), static_cast<size_t>(topK));
    const auto weight = [&](int64_t q) { return col.attention[static_cast<size_t>(q - col.key)]; };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int64_t a, int64_t b) {
                          const float wa = weight(a), wb = weight(b);
                          return wa != wb ? wa > wb : a < b;
                      });
    order.resize(k);
    col.topQueries = order;
    for (int64_t q : order)
        col.topWeights.push_back(weight(q));
}

}  // namespace

Result<KeyColumn> keyColumn(const TraceHead& head, int64_t key, int topK,
                            const std::atomic<bool>* cancelled, int64_t blockRows) {
    const kernels::TileSource& source = *head.source;
    const int64_t n = source.size();
    if (key < 0 || key >= n)
        return usage(fmt::format("key {} is outside the sequence [0, {})", key, n));
    if (topK < 0) return usage("top-k must be >= 0");
    if (blockRows < 1) return usage("the block must have at least one row");
    if (!source.hasMap(kernels::MapKind::Attention))
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} head {} stores no row normalizer: no exact attention",
                                 head.layer, head.head),
                     {},
                     {}};
    const Error stopped{ErrorKind::Cancelled, "key column cancelled", {}, {}};
    KeyColumn col;
    col.key = key;
    if (!computeBlocks(source, kernels::MapKind::Attention, key, blockRows, cancelled,
                       col.attention))
        return stopped;
    if (source.hasMap(kernels::MapKind::Logit)) {
        if (!computeBlocks(source, kernels::MapKind::Logit, key, blockRows, cancelled, col.logit))
            return stopped;
        if (hasLogitSplit(head)) {
            col.content.assign(col.logit.size(), NAN);
            col.forget.assign(col.logit.size(), NAN);
            for (size_t r = 0; r < col.logit.size(); ++r) {
                if (!std::isfinite(col.logit[r])) continue;
                const int64_t i = key + static_cast<int64_t>(r);
                col.content[r] = contentScore(head, i, key);
                col.forget[r] = forgetScore(head, i, key, col.logit[r], col.content[r]);
            }
        }
    }
    topReaders(col, topK);
    return col;
}

}  // namespace gatescope::core
