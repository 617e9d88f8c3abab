#include "core/maps/query_row.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kernels/cpu/power_attention.h"

namespace gatescope::core {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// q_query . k_j in double, for every key j <= query.
std::vector<double> dots(const HeadFactorSet& f, int64_t query) {
    const float* q = f.find("q");
    const float* k = f.find("k");
    const int64_t d = f.width("q");
    std::vector<double> out(static_cast<size_t>(query + 1));
    const float* qi = q + query * d;
    for (int64_t j = 0; j <= query; ++j) {
        const float* kj = k + j * d;
        double s = 0;
        for (int64_t c = 0; c < d; ++c)
            s += double(qi[c]) * double(kj[c]);
        out[static_cast<size_t>(j)] = s;
    }
    return out;
}

/// The gate-free score of each key in the family's log space.
std::vector<double> contentPart(const TraceHead& head, int64_t query) {
    std::vector<double> s = dots(head.factors, query);
    const double scale = head.spec.scale;
    if (head.spec.scoreKind == ScoreKind::Power) {
        const double p = head.spec.extras.value("p", 2);
        const double eps = head.spec.extras.value("eps", double(kernels::kPowerLogEps));
        for (double& v : s)
            v = p * std::log(std::abs(scale * v) + eps);
    } else {
        for (double& v : s)
            v *= scale;
    }
    return s;
}

/// Whether the split exists: a score made of q and k, and a decay that changes it.
bool hasSplit(const TraceHead& head) {
    const auto& spec = head.spec;
    if (spec.scoreKind == ScoreKind::Gsa || !head.factors.find("q")) return false;
    if (spec.scoreKind == ScoreKind::Wall)
        return head.factors.find("log_decay_cumsum") ||
               head.factors.find("log_scalar_decay_cumsum");
    return spec.hasDecay && head.factors.find("log_decay_cumsum");
}

void splitLogit(const TraceHead& head, QueryRow& row) {
    const int64_t keys = row.query + 1;
    row.content = contentPart(head, row.query);
    row.forget.assign(static_cast<size_t>(keys), kNaN);
    const float* c = head.factors.find("log_decay_cumsum");
    for (int64_t j = 0; j < keys; ++j) {
        const size_t u = static_cast<size_t>(j);
        if (!std::isfinite(row.logit[u])) {
            row.content[u] = kNaN;
            continue;
        }
        // The scalar families' decay is exactly c_i - c_j; Wall's sits inside the dot product,
        // so its part is whatever the gates changed.
        row.forget[u] = head.spec.scoreKind == ScoreKind::Wall
                            ? double(row.logit[u]) - row.content[u]
                            : double(c[row.query]) - double(c[j]);
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
        if (hasSplit(head)) splitLogit(head, row);
    }
    topKeys(row, topK);
    return row;
}

}  // namespace gatescope::core
