#include "core/analysis/loss_curves.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatescope::core {

namespace {

LossBin pool(std::span<const double> mean, std::span<const int64_t> count, int64_t begin,
             int64_t end, double center) {
    LossBin bin{begin, end, center, 0.0, 0};
    double sum = 0;
    for (int64_t i = begin; i < end; ++i) {
        if (count[i] == 0) continue;
        sum += mean[i] * count[i];
        bin.count += count[i];
    }
    bin.meanLoss = bin.count ? sum / bin.count : NAN;
    return bin;
}
}  // namespace

void PositionLossAccumulator::add(std::span<const float> loss) {
    if (loss.size() > m_sum.size()) {
        m_sum.resize(loss.size(), 0.0);
        m_count.resize(loss.size(), 0);
    }
    for (std::size_t i = 0; i < loss.size(); ++i) {
        if (std::isnan(loss[i])) continue;
        m_sum[i] += loss[i];
        ++m_count[i];
    }
    ++m_documents;
}

std::vector<double> PositionLossAccumulator::mean() const {
    std::vector<double> out(m_sum.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = m_count[i] ? m_sum[i] / m_count[i] : NAN;
    return out;
}

std::vector<LossBin> linearBins(std::span<const double> mean, std::span<const int64_t> count,
                                int64_t width) {
    std::vector<LossBin> bins;
    const int64_t n = static_cast<int64_t>(mean.size());
    width = std::max<int64_t>(width, 1);
    for (int64_t b = 0; b < n; b += width) {
        const int64_t e = std::min(n, b + width);
        bins.push_back(pool(mean, count, b, e, 0.5 * (b + e - 1)));
    }
    return bins;
}

std::vector<LossBin> exponentialBins(std::span<const double> mean, std::span<const int64_t> count,
                                     int binsPerOctave) {
    std::vector<LossBin> bins;
    const int64_t n = static_cast<int64_t>(mean.size());
    const double b = std::max(binsPerOctave, 1);
    for (int k = 0;; ++k) {
        // Context lengths l in [lo, hi), positions l - 1.
        const double lo = std::exp2(k / b), hi = std::exp2((k + 1) / b);
        const int64_t first = static_cast<int64_t>(std::ceil(lo));
        const int64_t last = static_cast<int64_t>(std::ceil(hi));  // exclusive
        if (first > n) break;
        if (last <= first) continue;
        bins.push_back(
            pool(mean, count, first - 1, std::min(last, n + 1) - 1, std::exp2((k + 0.5) / b)));
    }
    return bins;
}

std::vector<double> centeredMovingAverage(std::span<const double> values, int window) {
    const int64_t n = static_cast<int64_t>(values.size()), half = std::max(window, 1) / 2;
    // Prefix sums of values and of counts, NaN entries excluded.
    std::vector<double> sum(n + 1, 0.0);
    std::vector<int64_t> cnt(n + 1, 0);
    for (int64_t i = 0; i < n; ++i) {
        const bool ok = !std::isnan(values[i]);
        sum[i + 1] = sum[i] + (ok ? values[i] : 0.0);
        cnt[i + 1] = cnt[i] + (ok ? 1 : 0);
    }
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t a = std::max<int64_t>(0, i - half), b = std::min(n, i + half + 1);
        const int64_t c = cnt[b] - cnt[a];
        out[i] = c ? (sum[b] - sum[a]) / c : NAN;
    }
    return out;
}

std::vector<double> runningPerplexity(std::span<const double> mean) {
    std::vector<double> out(mean.size());
    double sum = 0;
    int64_t used = 0;
    for (std::size_t i = 0; i < mean.size(); ++i) {
        if (!std::isnan(mean[i])) {
            sum += mean[i];
            ++used;
        }
        out[i] = used ? std::exp(sum / used) : NAN;
    }
    return out;
}

BestContext bestContext(std::span<const LossBin> bins) {
    BestContext best{NAN, 0};
    for (const auto& bin : bins) {
        if (bin.count == 0) continue;
        if (std::isnan(best.loss) || bin.meanLoss < best.loss) best = {bin.meanLoss, bin.center};
    }
    return best;
}

}  // namespace gatescope::core
