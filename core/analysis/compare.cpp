#include "core/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include <fmt/format.h>

#include "core/analysis/analysis_limits.h"
#include "core/analysis/loss_curves.h"
#include "core/maps/trace_head.h"
#include "core/trace/thread_limit.h"
#include "kernels/cpu/parallel_for.h"

namespace gatescope::core {

namespace {

constexpr int64_t kDivergenceRows = 64;  // query rows per tile read
constexpr double kFloor = 1e-12;         // probabilities below this count as this in the KL logs

/// Row-averaged divergences of two heads' attention over the same tokens.
AttentionDivergence divergence(const TraceHead& a, const TraceHead& b, int64_t n) {
    AttentionDivergence d;
    std::vector<float> ta(kDivergenceRows * n), tb(kDivergenceRows * n);
    for (int64_t r0 = 0; r0 < n; r0 += kDivergenceRows) {
        const int64_t rows = std::min(kDivergenceRows, n - r0), cols = r0 + rows;
        a.source->compute(kernels::MapKind::Attention, r0, rows, 0, cols, ta.data());
        b.source->compute(kernels::MapKind::Attention, r0, rows, 0, cols, tb.data());
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j <= r0 + r; ++j) {
                const double p = std::max<double>(ta[r * cols + j], 0.0);
                const double q = std::max<double>(tb[r * cols + j], 0.0);
                const double m = 0.5 * (p + q);
                if (p > 0) d.klAB += p * std::log(p / std::max(q, kFloor));
                if (q > 0) d.klBA += q * std::log(q / std::max(p, kFloor));
                if (p > 0) d.js += 0.5 * p * std::log(p / m);
                if (q > 0) d.js += 0.5 * q * std::log(q / m);
                d.totalVariation += 0.5 * std::abs(p - q);
            }
    }
    d.klAB /= n, d.klBA /= n, d.js /= n, d.totalVariation /= n;
    return d;
}

LossDelta lossDelta(const data::PerTokenResults& a, const data::PerTokenResults& b,
                    const TokenAlignment& al, const CompareOptions& o) {
    // Segments between consecutive aligned boundaries: the loss of the same text under each model.
    LossDelta out;
    std::vector<double>& delta = out.delta;
    delta.assign(a.loss.size(), NAN);
    for (std::size_t k = 1; k < al.pairs.size(); ++k) {
        const auto [ia0, ib0] = al.pairs[k - 1];
        const auto [ia1, ib1] = al.pairs[k];
        double la = 0, lb = 0;
        for (int64_t t = ia0; t < ia1; ++t)
            la += a.loss[t];
        for (int64_t t = ib0; t < ib1; ++t)
            lb += b.loss[t];
        if (!std::isnan(la) && !std::isnan(lb)) delta[ia1 - 1] = la - lb;
    }
    std::vector<int64_t> count(delta.size());
    double total = 0;
    int64_t used = 0, aBetter = 0;
    for (std::size_t i = 0; i < delta.size(); ++i) {
        count[i] = std::isnan(delta[i]) ? 0 : 1;
        if (count[i]) total += delta[i], ++used, aBetter += delta[i] < 0 ? 1 : 0;
    }
    auto bins = [&](const std::vector<LossBin>& in) {
        std::vector<LossGapBin> gaps;
        for (const auto& bin : in) {
            LossGapBin gap{bin.begin, bin.end, bin.center, std::nullopt, bin.count, std::nullopt};
            if (bin.count) gap.meanDelta = bin.meanLoss;
            if (total != 0) gap.shareOfGap = (bin.count ? bin.meanLoss * bin.count : 0.0) / total;
            gaps.push_back(gap);
        }
        return gaps;
    };
    out.meanDelta = used ? total / used : NAN;
    out.totalDelta = total;
    out.positions = used;
    out.aBetterFraction = used ? double(aBetter) / used : NAN;
    out.linearBins = bins(linearBins(delta, count, o.binWidth));
    out.exponentialBins = bins(exponentialBins(delta, count, o.binsPerOctave));
    return out;
}

GateDifference gateDiff(const data::Array& ga, const data::Array& gb, int head) {
    const int64_t n = ga.shape[1], c = ga.shape[2];
    double absDiff = 0, retention = 0;
    for (int64_t t = 0; t < n * c; ++t) {
        const double x = ga.values[head * n * c + t], y = gb.values[head * n * c + t];
        absDiff += std::abs(x - y);
        retention += std::exp(x) - std::exp(y);
    }
    return {absDiff / (n * c), retention / (n * c)};
}

}  // namespace

Result<TraceComparison> compareTraces(const data::TraceReader& a, const data::TraceReader& b,
                                      const CompareOptions& o) {
    for (auto st : {checkOptionRange("bins per octave", o.binsPerOctave, 1, kMaxBinsPerOctave),
                    checkOptionRange("linear bin width", o.binWidth, 1, kMaxBinWidth),
                    checkThreadCount(o.threads)})
        if (!st) return st.error();
    auto tokA = a.tokens();
    if (!tokA) return tokA.error();
    auto tokB = b.tokens();
    if (!tokB) return tokB.error();
    TraceComparison out;
    out.a = a.path();
    out.b = b.path();
    out.alignment = alignTokens(*tokA, *tokB);
    const TokenAlignment& al = out.alignment;
    auto lossA = a.perToken();
    auto lossB = b.perToken();
    if (lossA && lossB) out.loss = lossDelta(*lossA, *lossB, al, o);
    for (int l : o.layers)
        if (!a.summary().layer(l) || !b.summary().layer(l))
            return Error{ErrorKind::Usage, fmt::format("layer {} is not in both traces", l),
                         a.path(), "--layers"};
    const int64_t n = a.summary().nTokens;
    for (const auto& la : a.summary().layers) {
        const auto* lb = b.summary().layer(la.index);
        if (!lb) continue;
        if (!o.layers.empty() &&
            std::find(o.layers.begin(), o.layers.end(), la.index) == o.layers.end())
            continue;
        const int heads = std::min(la.header.nHeads, lb->header.nHeads);
        for (int h : o.heads)
            if (h < 0 || h >= heads)
                return Error{ErrorKind::Usage,
                             fmt::format("head {} is not in layer {} of both traces (heads 0..{})",
                                         h, la.index, heads - 1),
                             a.path(), "--heads"};
        std::vector<int> chosen = o.heads;
        if (chosen.empty())
            for (int h = 0; h < heads; ++h)
                chosen.push_back(h);
        std::vector<HeadComparison> rows(chosen.size());
        data::Array ga, gb;
        const bool gates = la.hasGates && lb->hasGates;
        if (gates) {
            auto x = a.gates(la.index), y = b.gates(la.index);
            if (!x) return x.error();
            if (!y) return y.error();
            ga = std::move(*x), gb = std::move(*y);
        }
        std::vector<Error> errors;
        std::mutex errorMutex;
        kernels::parallelFor(static_cast<int64_t>(chosen.size()), o.threads, [&](int64_t idx) {
            HeadComparison& row = rows[idx];
            row.head = chosen[idx];
            if (gates && ga.shape == gb.shape) row.gates = gateDiff(ga, gb, row.head);
            if (o.attention && al.identical && !(o.cancel && o.cancel->load())) {
                auto ha = loadTraceHead(a, la.index, row.head);
                auto hb = loadTraceHead(b, la.index, row.head);
                if (!ha || !hb) {
                    std::lock_guard lock(errorMutex);
                    errors.push_back(!ha ? ha.error() : hb.error());
                    return;
                }
                row.attention = divergence(**ha, **hb, n);
            }
        });
        if (!errors.empty()) return errors.front();
        if (o.cancel && o.cancel->load())
            return Error{ErrorKind::Cancelled, "cancelled", a.path(), {}};
        out.layers.push_back({la.index, std::move(rows)});
    }
    return out;
}

}  // namespace gatescope::core
