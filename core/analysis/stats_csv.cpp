// writeStatsCsv: the tables of a StatsReport as CSV files, written as one set.
#include <algorithm>
#include <concepts>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/effective_context.h"
#include "core/analysis/stats_report.h"
#include "data/common/atomic_folder.h"

namespace gatescope::core {

namespace {

// Nine significant digits keep a double's value for plotting; NaN and infinities print as nan
// and inf.
std::string number(double v) {
    return fmt::format("{:.9g}", v);
}

template <std::integral T>
std::string number(T v) {
    return std::to_string(v);
}

/// A text field quoted as RFC 4180 asks: in double quotes, with inner quotes doubled.
std::string csvField(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

void addTable(std::vector<data::NamedFile>& files, std::string name,
              const std::vector<std::string>& columns,
              const std::vector<std::vector<std::string>>& rows) {
    std::string text = fmt::format("{}\n", fmt::join(columns, ","));
    for (const auto& row : rows)
        text += fmt::format("{}\n", fmt::join(row, ","));
    files.emplace_back(std::move(name), std::move(text));
}

void addLossTables(std::vector<data::NamedFile>& files, const LossCurveReport& loss) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < loss.meanByPosition.size(); ++i)
        rows.push_back({std::to_string(i), number(loss.meanByPosition[i]),
                        number(loss.countByPosition[i]), number(loss.smoothed[i]),
                        number(loss.runningPerplexity[i])});
    addTable(files, "loss_by_position.csv",
             {"position", "mean_loss", "count", "smoothed", "running_perplexity"}, rows);
    for (const auto* bins : {&loss.linearBins, &loss.exponentialBins}) {
        rows.clear();
        for (const auto& b : *bins)
            rows.push_back({number(b.begin), number(b.end), number(b.center), number(b.meanLoss),
                            number(b.count)});
        addTable(files, bins == &loss.linearBins ? "loss_linear_bins.csv" : "loss_exp_bins.csv",
                 {"begin", "end", "center", "mean_loss", "count"}, rows);
    }
}

/// effective_context.csv: one row per trace, head and bin, with the trace's loss on that bin.
void addContextTable(std::vector<data::NamedFile>& files, const StatsReport& report) {
    std::vector<std::vector<std::string>> rows;
    auto at = [](const PositionProfile* p, std::size_t b) {
        return p && b < p->byBin.size() ? number(p->byBin[b]) : std::string();
    };
    for (const auto& t : report.traces)
        for (const auto& h : effectiveContext(t))
            for (std::size_t b = 0; b < t.lossByBin.size(); ++b) {
                const int64_t begin = static_cast<int64_t>(b) * report.binWidth;
                rows.push_back({t.path, number(h.layer), number(h.head), number(begin),
                                number(std::min(begin + report.binWidth, t.nTokens)),
                                at(h.attention, b), at(h.gate, b), number(t.lossByBin[b])});
            }
    if (!rows.empty())
        addTable(files, "effective_context.csv",
                 {"trace", "layer", "head", "begin", "end", "attention_horizon", "gate_horizon",
                  "mean_loss"},
                 rows);
}

void addEventTable(std::vector<data::NamedFile>& files, const StatsReport& report) {
    std::vector<std::vector<std::string>> rows;
    bool any = false;
    for (const auto& t : report.traces) {
        if (!t.gateEvents) continue;
        any = true;
        for (const auto& e : t.gateEvents->events)
            rows.push_back({t.path, number(e.layer), number(e.head), number(e.channel),
                            number(e.position), number(e.retention), csvField(e.token),
                            csvField(e.context)});
    }
    if (any)
        addTable(files, "gate_events.csv",
                 {"trace", "layer", "head", "channel", "position", "retention", "token", "context"},
                 rows);
}

/// series.csv: one row per checkpoint and layer (layer -1: every layer).
void addSeriesTable(std::vector<data::NamedFile>& files, const StatsReport& report) {
    if (!report.series) return;
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : report.series->points) {
        std::vector<const SeriesLayer*> layers = {&p.overall};
        for (const auto& l : p.layers)
            layers.push_back(&l);
        for (const auto* l : layers)
            rows.push_back({p.path, number(p.step), p.stepSource, number(l->layer),
                            l->layer < 0 ? number(p.meanLoss) : std::string(),
                            number(l->timescaleMedian), number(l->gateHorizonMedian),
                            number(l->alwaysOnFraction), number(l->sinkMass),
                            number(l->attentionHorizonMedian), number(l->prunableFraction)});
    }
    addTable(files, "series.csv",
             {"trace", "step", "step_source", "layer", "mean_loss", "timescale_median",
              "gate_horizon_median", "always_on_fraction", "sink_mass", "attention_horizon_median",
              "prunable_fraction"},
             rows);
}

}  // namespace

Status writeStatsCsv(const StatsReport& report, const std::filesystem::path& dir) {
    // Every table is built in memory first and the set written as one (atomic_folder.h).
    std::vector<data::NamedFile> files;
    if (report.loss) addLossTables(files, *report.loss);
    std::vector<std::vector<std::string>> gates, attention;
    for (const auto& t : report.traces) {
        for (const auto& layer : t.gates)
            for (const auto& c : layer.channels)
                gates.push_back({t.path, number(layer.layer), number(c.head), number(c.channel),
                                 number(c.meanRetention), number(c.p05), number(c.median),
                                 number(c.p95), number(c.timescale), number(c.horizonMedian),
                                 c.kind});
        for (const auto& layer : t.attention)
            for (const auto& h : layer.heads)
                attention.push_back({t.path, number(layer.layer), number(h.head),
                                     number(h.meanEntropy), number(h.sinkMass),
                                     number(h.meanArgmaxDistance), number(h.meanDistance),
                                     number(h.negligibleBlockFraction)});
    }
    if (!gates.empty())
        addTable(files, "gates.csv",
                 {"trace", "layer", "head", "channel", "mean_retention", "p05", "median", "p95",
                  "timescale", "horizon_median", "kind"},
                 gates);
    if (!attention.empty())
        addTable(files, "attention.csv",
                 {"trace", "layer", "head", "mean_entropy", "sink_mass", "mean_argmax_distance",
                  "mean_distance", "negligible_block_fraction"},
                 attention);
    addContextTable(files, report);
    addEventTable(files, report);
    addSeriesTable(files, report);
    return data::writeFilesAtomically(dir, files);
}

}  // namespace gatescope::core
