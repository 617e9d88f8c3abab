#include "core/analysis/stats_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/analysis/analysis_limits.h"
#include "core/analysis/checkpoint_series.h"
#include "core/analysis/loss_curves.h"
#include "core/trace/thread_limit.h"

namespace gatescope::core {

namespace {

Result<LossCurveReport> lossCurves(
    const std::vector<std::shared_ptr<const data::TraceReader>>& traces, const StatsOptions& o) {
    PositionLossAccumulator acc;
    for (const auto& t : traces) {
        auto perToken = t->perToken();
        if (!perToken) return perToken.error();
        acc.add(perToken->loss);
    }
    LossCurveReport out;
    out.documents = acc.documents();
    out.meanByPosition = acc.mean();
    out.countByPosition = acc.count();
    const auto& mean = out.meanByPosition;
    double total = 0;
    int64_t count = 0;
    for (std::size_t i = 0; i < mean.size(); ++i)
        if (acc.count()[i]) total += mean[i] * acc.count()[i], count += acc.count()[i];
    out.meanLoss = count ? total / count : NAN;
    out.smoothed = centeredMovingAverage(mean, o.smoothingWindow);
    out.smoothingWindow = o.smoothingWindow;
    out.runningPerplexity = runningPerplexity(mean);
    out.linearBins = linearBins(mean, acc.count(), o.linearBinWidth);
    out.exponentialBins = exponentialBins(mean, acc.count(), o.binsPerOctave);
    out.binsPerOctave = o.binsPerOctave;
    out.bestContext = bestContext(out.exponentialBins);
    return out;
}

/// The trace's own mean loss per linear bin of `width` positions.
Result<std::vector<double>> lossByBin(const data::TraceReader& trace, int64_t width) {
    auto perToken = trace.perToken();
    if (!perToken) return perToken.error();
    std::vector<double> mean(perToken->loss.size());
    std::vector<int64_t> count(perToken->loss.size());
    for (std::size_t i = 0; i < mean.size(); ++i) {
        count[i] = std::isnan(perToken->loss[i]) ? 0 : 1;
        mean[i] = count[i] ? perToken->loss[i] : 0.0;
    }
    std::vector<double> out;
    for (const auto& bin : linearBins(mean, count, width))
        out.push_back(bin.meanLoss);
    return out;
}

bool wanted(const StatsOptions& o, int layer) {
    return o.layers.empty() || std::find(o.layers.begin(), o.layers.end(), layer) != o.layers.end();
}

}  // namespace

Result<StatsReport> statsReport(const std::vector<std::shared_ptr<const data::TraceReader>>& traces,
                                const StatsOptions& o) {
    for (auto st : {checkOptionRange("bins per octave", o.binsPerOctave, 1, kMaxBinsPerOctave),
                    checkOptionRange("linear bin width", o.linearBinWidth, 1, kMaxBinWidth),
                    checkOptionRange("smoothing window", o.smoothingWindow, 1, kMaxSmoothingWindow),
                    checkThreadCount(o.attentionOptions.threads)})
        if (!st) return st.error();
    if (!(o.gate.horizonThreshold > 0.0 && o.gate.horizonThreshold < 1.0))
        return Error{ErrorKind::Usage,
                     fmt::format("horizon threshold is {}; allowed: strictly between 0 and 1",
                                 o.gate.horizonThreshold),
                     {},
                     {}};
    if (!(o.attentionOptions.massShare > 0.0 && o.attentionOptions.massShare <= 1.0))
        return Error{ErrorKind::Usage,
                     fmt::format("attention mass share is {}; allowed: above 0, at most 1",
                                 o.attentionOptions.massShare),
                     {},
                     {}};
    StatsOptions options = o;  // the horizon profiles use the loss curves' linear bins
    options.gate.binWidth = options.attentionOptions.binWidth = o.linearBinWidth;
    StatsReport report;
    report.binWidth = o.linearBinWidth;
    report.massShare = o.attentionOptions.massShare;
    report.retention = o.gate.horizonThreshold;
    if (o.loss) {
        auto loss = lossCurves(traces, o);
        if (!loss) return loss.error();
        report.loss = std::move(*loss);
    }
    for (const auto& t : traces) {
        TraceStats entry{t->path(), t->summary().modelType, t->summary().nTokens, {}, {}, {}, {}};
        auto binnedLoss = lossByBin(*t, o.linearBinWidth);
        if (!binnedLoss) return binnedLoss.error();
        entry.lossByBin = std::move(*binnedLoss);
        if (o.gateEvents) {
            GateEventOptions events = o.gateEventOptions;
            events.layers = o.layers;
            auto found = core::gateEvents(*t, events);
            if (!found) return found.error();
            entry.gateEvents = std::move(*found);
        }
        for (const auto& layer : t->summary().layers) {
            if (!wanted(o, layer.index)) continue;
            if (o.gates && layer.hasGates) {
                auto gates = t->gates(layer.index);
                if (!gates) return gates.error();
                entry.gates.push_back(gateStats(layer.index, *gates, options.gate));
            }
            if (o.attention) {
                auto heads = attentionStats(*t, layer.index, options.attentionOptions);
                if (!heads) return heads.error();
                entry.attention.push_back({layer.index, std::move(*heads)});
            }
        }
        report.traces.push_back(std::move(entry));
    }
    if (o.series) {
        auto series = checkpointSeries(traces, report.traces, o.steps, o.binsPerOctave);
        if (!series) return series.error();
        report.series = std::move(*series);
    }
    return report;
}

}  // namespace gatescope::core
