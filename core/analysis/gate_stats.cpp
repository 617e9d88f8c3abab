#include "core/analysis/gate_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/gate_horizon.h"

namespace gatescope::core {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return NAN;
    const double pos = q * (sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    // Timescales of always-open channels are infinite: 0 * (inf - x) would make the median NaN.
    if (frac == 0) return sorted[lo];
    if (std::isinf(sorted[hi])) return sorted[hi];
    return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

/// Horizon per start t: the smallest d >= 1 with sum_{tau = t+1..t+d} g < log(threshold).
/// S is non-increasing, so the end pointer only moves forward (O(N)).
void horizon(const std::vector<double>& g, double threshold, ChannelGateStats& out) {
    const int64_t n = static_cast<int64_t>(g.size());
    std::vector<double> prefix(n + 1, 0.0);
    for (int64_t t = 0; t < n; ++t)
        prefix[t + 1] = prefix[t] + g[t];
    const double logThreshold = std::log(threshold);
    std::vector<double> reached;
    int64_t end = 1;
    for (int64_t t = 0; t < n; ++t) {
        end = std::max(end, t + 1);
        // cumulative log retention from key t to query e: prefix[e + 1] - prefix[t + 1]
        while (end < n && prefix[end + 1] - prefix[t + 1] >= logThreshold)
            ++end;
        if (end < n) reached.push_back(static_cast<double>(end - t));
    }
    out.horizonReachedFraction = n ? static_cast<double>(reached.size()) / n : 0.0;
    std::sort(reached.begin(), reached.end());
    out.horizonMedian = quantile(reached, 0.5);
}

}  // namespace

LayerGateStats gateStats(int layer, const data::Array& gates, const GateStatsOptions& options) {
    LayerGateStats stats;
    stats.layer = layer;
    if (gates.shape.size() != 3) return stats;
    const int64_t heads = gates.shape[0], n = gates.shape[1], channels = gates.shape[2];
    std::vector<double> timescales;
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t c = 0; c < channels; ++c) {
            ChannelGateStats ch;
            ch.head = static_cast<int>(h);
            ch.channel = static_cast<int>(c);
            std::vector<double> g(n), retention(n);
            double sumG = 0, sumR = 0;
            for (int64_t t = 0; t < n; ++t) {
                g[t] = std::min(0.0, double(gates.values[(h * n + t) * channels + c]));
                retention[t] = std::exp(g[t]);
                sumG += g[t];
                sumR += retention[t];
            }
            ch.meanRetention = n ? sumR / n : NAN;
            ch.timescale = sumG < 0 ? -double(n) / sumG : std::numeric_limits<double>::infinity();
            std::sort(retention.begin(), retention.end());
            ch.p05 = quantile(retention, 0.05);
            ch.p25 = quantile(retention, 0.25);
            ch.median = quantile(retention, 0.5);
            ch.p75 = quantile(retention, 0.75);
            ch.p95 = quantile(retention, 0.95);
            horizon(g, options.horizonThreshold, ch);
            if (ch.p05 >= options.alwaysOnRetention) {
                ch.kind = "always_on";
                ++stats.alwaysOn;
            } else if (ch.p95 - ch.p05 >= options.dynamicSpread) {
                ch.kind = "dynamic";
                ++stats.dynamic;
            } else {
                ch.kind = "static";
                ++stats.staticChannels;
            }
            timescales.push_back(ch.timescale);
            stats.channels.push_back(std::move(ch));
        }
    stats.headHorizons = gateHorizonProfiles(gates, options.horizonThreshold, options.binWidth);
    std::sort(timescales.begin(), timescales.end());
    if (!timescales.empty()) {
        stats.timescaleMin = timescales.front();
        stats.timescaleMax = timescales.back();
        stats.timescaleMedian = quantile(timescales, 0.5);
    }
    return stats;
}

}  // namespace gatescope::core
