#include "core/maps/query_row.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/maps/logit_split.h"

namespace gatescope::core {

namespace {

void splitLogit(const TraceHead& head, QueryRow& row) {
    const int64_t keys = row.query + 1;
    row.content.assign(static_cast<size_t>(keys), NAN);
    row.forget.assign(static_cast<size_t>(keys), NAN);
    for (int64_t j = 0; j < keys; ++j) {
        const size_t u = static_cast<size_t>(j);
        if (!std::isfinite(row.logit[u])) continue;
        row.content[u] = contentScore(head, row.query, j);
        row.forget[u] = forgetScore(head, row.query, j, row.logit[u], row.content[u]);
    }
}

void topKeys(QueryRow& row, int topK) {
    std::vector<int64_t> order;
    for (int64_t j = 0; j <= row.query; ++j) {
        // Keys the layer disallows have a logit of -inf; GSA (no logit) allows every key.
        const bool allowed = row.logit.empty() || std::isfinite(row.logit[static_cast<size_t>(j)]);
        if (allowed) order.push_back(j);
    }
    const size_t k = std::min(order.size(), static_cast<size_t>(topK));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int64_t a, int64_t b) {
                          const float wa = row.attention[static_cast<size_t>(a)];
                          const float wb = row.attention[static_cast<size_t>(b)];
                          return wa != wb ? wa > wb : a < b;
                      });
    order.resize(k);
    row.topKeys = order;
    for (int64_t j : order)
        row.topWeights.push_back(row.attention[static_cast<size_t>(j)]);
}

}  // namespace

Result<QueryRow> queryRow(const TraceHead& head, int64_t query, int topK) {
    const kernels::TileSource& source = *head.source;
    const int64_t n = source.size();
    if (query < 0 || query >= n)
        return Error{ErrorKind::Usage,
                     fmt::format("query {} is outside the sequence [0, {})", query, n),
                     {},
                     {}};
    if (topK < 0) return Error{ErrorKind::Usage, "top-k must be >= 0", {}, {}};
    if (!source.hasMap(kernels::MapKind::Attention))
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} head {} stores no row normalizer: no exact attention",
                                 head.layer, head.head),
                     {},
                     {}};
    QueryRow row;
    row.query = query;
    const int64_t keys = query + 1;
    row.attention.resize(static_cast<size_t>(keys));
    source.compute(kernels::MapKind::Attention, query, 1, 0, keys, row.attention.data());
    if (source.hasMap(kernels::MapKind::Logit)) {
        row.logit.resize(static_cast<size_t>(keys));
        source.compute(kernels::MapKind::Logit, query, 1, 0, keys, row.logit.data());
        if (hasLogitSplit(head)) splitLogit(head, row);
    }
    topKeys(row, topK);
    return row;
}

}  // namespace gatescope::core
