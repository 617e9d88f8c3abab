#include "core/analysis/checkpoint_series.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/analysis/stats_result.h"

namespace gatescope::core {

namespace {

double median(std::vector<double> values) {
    std::erase_if(values, [](double v) { return std::isnan(v); });
    if (values.empty()) return NAN;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double mean(const std::vector<double>& values) {
    double sum = 0;
    int64_t count = 0;
    for (double v : values)
        if (!std::isnan(v)) sum += v, ++count;
    return count ? sum / double(count) : NAN;
}

/// The quantities of the gate and attention statistics of `layer` (-1: all layers).
SeriesLayer summarize(const TraceStats& t, int layer) {
    std::vector<double> timescales, gateHorizons, sinks, attentionHorizons, prunable;
    double alwaysOn = 0, channels = 0;
    for (const auto& g : t.gates) {
        if (layer >= 0 && g.layer != layer) continue;
        for (const auto& c : g.channels)
            timescales.push_back(c.timescale);
        for (const auto& h : g.headHorizons)
            gateHorizons.push_back(h.median);
        alwaysOn += g.alwaysOn;
        channels += double(g.channels.size());
    }
    for (const auto& a : t.attention) {
        if (layer >= 0 && a.layer != layer) continue;
        for (const auto& h : a.heads) {
            sinks.push_back(h.sinkMass);
            attentionHorizons.push_back(h.horizon.median);
            if (h.negligibleBlockFraction >= 0) prunable.push_back(h.negligibleBlockFraction);
        }
    }
    return {layer,
            median(timescales),
            median(gateHorizons),
            channels > 0 ? alwaysOn / channels : NAN,
            mean(sinks),
            median(attentionHorizons),
            mean(prunable)};
}

/// The last run of digits in the checkpoint folder's name ("checkpoint-2000", "step_500").
std::optional<int64_t> stepFromName(const data::TraceReader& trace) {
    auto manifest = trace.manifest();
    if (!manifest) return std::nullopt;
    const auto path = manifest->value(nlohmann::json::json_pointer("/checkpoint/path"), "");
    if (path.empty()) return std::nullopt;
    std::filesystem::path folder = path;
    if (folder.filename().empty()) folder = folder.parent_path();
    const std::string name = folder.filename().string();
    auto end = name.find_last_of("0123456789");
    if (end == std::string::npos) return std::nullopt;
    auto begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])))
        --begin;
    int64_t step = 0;
    if (std::from_chars(name.data() + begin, name.data() + end + 1, step).ec != std::errc())
        return std::nullopt;
    return step;
}

Result<std::vector<LossBin>> lossBins(const data::TraceReader& trace, int binsPerOctave) {
    auto perToken = trace.perToken();
    if (!perToken) return perToken.error();
    std::vector<double> loss(perToken->loss.size());
    std::vector<int64_t> count(loss.size());
    for (std::size_t i = 0; i < loss.size(); ++i) {
        count[i] = std::isnan(perToken->loss[i]) ? 0 : 1;
        loss[i] = count[i] ? perToken->loss[i] : 0.0;
    }
    return exponentialBins(loss, count, binsPerOctave);
}

}  // namespace

Result<SeriesReport> checkpointSeries(
    const std::vector<std::shared_ptr<const data::TraceReader>>& traces,
    const std::vector<TraceStats>& perTrace, const std::vector<int64_t>& steps, int binsPerOctave) {
    if (!steps.empty() && steps.size() != traces.size())
        return Error{ErrorKind::Usage,
                     fmt::format("{} steps given for {} traces", steps.size(), traces.size()),
                     {},
                     "--steps"};
    SeriesReport report;
    std::optional<data::TokenTable> first;
    std::vector<std::optional<int64_t>> named;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        auto tokens = traces[i]->tokens();
        if (!tokens) return tokens.error();
        if (!first)
            first = std::move(*tokens);
        else if (tokens->ids != first->ids)
            return Error{ErrorKind::Usage,
                         fmt::format("a checkpoint series needs one text: this trace holds other "
                                     "tokens than {}",
                                     traces[0]->path()),
                         traces[i]->path(),
                         {}};
        SeriesPoint point;
        point.path = traces[i]->path();
        auto bins = lossBins(*traces[i], binsPerOctave);
        if (!bins) return bins.error();
        point.lossBins = std::move(*bins);
        double sum = 0;
        int64_t count = 0;
        for (const auto& b : point.lossBins)
            if (b.count > 0) sum += b.meanLoss * double(b.count), count += b.count;
        point.meanLoss = count ? sum / double(count) : NAN;
        point.overall = summarize(perTrace.at(i), -1);
        for (const auto& layer : traces[i]->summary().layers)
            point.layers.push_back(summarize(perTrace[i], layer.index));
        named.push_back(stepFromName(*traces[i]));
        report.points.push_back(std::move(point));
    }
    const bool allNamed = std::all_of(named.begin(), named.end(), [](auto s) { return bool(s); });
    for (std::size_t i = 0; i < report.points.size(); ++i) {
        auto& p = report.points[i];
        if (!steps.empty())
            p.step = steps[i], p.stepSource = "option";
        else if (allNamed)
            p.step = *named[i], p.stepSource = "name";
        else
            p.step = static_cast<int64_t>(i), p.stepSource = "order";
    }
    std::stable_sort(report.points.begin(), report.points.end(),
                     [](const SeriesPoint& a, const SeriesPoint& b) { return a.step < b.step; });
    return report;
}

}  // namespace gatescope::core
