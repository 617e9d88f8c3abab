#include "core/analysis/stats_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/common/atomic_folder.h"

#include "core/analysis/analysis_limits.h"
#include "core/analysis/loss_curves.h"
#include "core/trace/thread_limit.h"

namespace gatescope::core {

namespace {

nlohmann::json binsJson(const std::vector<LossBin>& bins) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : bins)
        out.push_back({{"begin", b.begin},
                       {"end", b.end},
                       {"center", b.center},
                       {"mean_loss", b.meanLoss},
                       {"count", b.count}});
    return out;
}

nlohmann::json lossJson(const std::vector<std::shared_ptr<const data::TraceReader>>& traces,
                        const StatsOptions& o, Status& status) {
    PositionLossAccumulator acc;
    for (const auto& t : traces) {
        auto perToken = t->perToken();
        if (!perToken) {
            status = perToken.error();
            return {};
        }
        acc.add(perToken->loss);
    }
    const auto mean = acc.mean();
    const auto lin = linearBins(mean, acc.count(), o.linearBinWidth);
    const auto exp = exponentialBins(mean, acc.count(), o.binsPerOctave);
    const auto best = bestContext(exp);
    double total = 0;
    int64_t count = 0;
    for (std::size_t i = 0; i < mean.size(); ++i)
        if (acc.count()[i]) total += mean[i] * acc.count()[i], count += acc.count()[i];
    return {{"documents", acc.documents()},
            {"mean_loss", count ? total / count : NAN},
            {"by_position",
             {{"mean", mean},
              {"count", acc.count()},
              {"smoothed", centeredMovingAverage(mean, o.smoothingWindow)},
              {"smoothing_window", o.smoothingWindow},
              {"running_perplexity", runningPerplexity(mean)}}},
            {"linear_bins", binsJson(lin)},
            {"exponential_bins", binsJson(exp)},
            {"bins_per_octave", o.binsPerOctave},
            {"best_context", {{"loss", best.loss}, {"context_length", best.contextLength}}}};
}

nlohmann::json gateJson(const LayerGateStats& s) {
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& c : s.channels)
        channels.push_back({{"head", c.head},
                            {"channel", c.channel},
                            {"mean_retention", c.meanRetention},
                            {"p05", c.p05},
                            {"p25", c.p25},
                            {"median", c.median},
                            {"p75", c.p75},
                            {"p95", c.p95},
                            {"timescale", c.timescale},
                            {"horizon_median", c.horizonMedian},
                            {"horizon_reached_fraction", c.horizonReachedFraction},
                            {"kind", c.kind}});
    return {{"layer", s.layer},
            {"timescale_min", s.timescaleMin},
            {"timescale_median", s.timescaleMedian},
            {"timescale_max", s.timescaleMax},
            {"always_on", s.alwaysOn},
            {"dynamic", s.dynamic},
            {"static", s.staticChannels},
            {"channels", channels}};
}

nlohmann::json attentionJson(const std::vector<HeadAttentionStats>& heads) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& h : heads)
        out.push_back({{"head", h.head},
                       {"mass_by_distance", h.massByDistance},
                       {"mean_entropy", h.meanEntropy},
                       {"sink_mass", h.sinkMass},
                       {"mean_argmax_distance", h.meanArgmaxDistance},
                       {"mean_distance", h.meanDistance},
                       {"negligible_block_fraction", h.negligibleBlockFraction}});
    return out;
}

bool wanted(const StatsOptions& o, int layer) {
    return o.layers.empty() || std::find(o.layers.begin(), o.layers.end(), layer) != o.layers.end();
}

}  // namespace

Result<nlohmann::json> statsReport(
    const std::vector<std::shared_ptr<const data::TraceReader>>& traces, const StatsOptions& o) {
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
    nlohmann::json report = {{"traces", nlohmann::json::array()}};
    if (o.loss) {
        Status status = Ok{};
        report["loss"] = lossJson(traces, o, status);
        if (!status) return status.error();
    }
    for (const auto& t : traces) {
        nlohmann::json entry = {{"path", t->path()},
                                {"model_type", t->summary().modelType},
                                {"n_tokens", t->summary().nTokens}};
        for (const auto& layer : t->summary().layers) {
            if (!wanted(o, layer.index)) continue;
            if (o.gates && layer.hasGates) {
                auto gates = t->gates(layer.index);
                if (!gates) return gates.error();
                entry["gates"].push_back(gateJson(gateStats(layer.index, *gates, o.gate)));
            }
            if (o.attention) {
                auto heads = attentionStats(*t, layer.index, o.attentionOptions);
                if (!heads) return heads.error();
                entry["attention"].push_back(
                    {{"layer", layer.index}, {"heads", attentionJson(*heads)}});
            }
        }
        report["traces"].push_back(std::move(entry));
    }
    return report;
}

}  // namespace gatescope::core

namespace gatescope::core {

namespace {

std::string number(const nlohmann::json& v) {
    if (v.is_null()) return "nan";
    if (v.is_number_float()) return fmt::format("{:.9g}", v.get<double>());
    return v.dump();
}

void addTable(std::vector<data::NamedFile>& files, std::string name,
              const std::vector<std::string>& columns,
              const std::vector<std::vector<std::string>>& rows) {
    std::string text = fmt::format("{}\n", fmt::join(columns, ","));
    for (const auto& row : rows)
        text += fmt::format("{}\n", fmt::join(row, ","));
    files.emplace_back(std::move(name), std::move(text));
}

}  // namespace

Status writeStatsCsv(const nlohmann::json& report, const std::filesystem::path& dir) {
    // Every table is built in memory first and the set written as one (atomic_folder.h).
    std::vector<data::NamedFile> files;
    if (report.contains("loss")) {
        const auto& loss = report["loss"];
        const auto& by = loss["by_position"];
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 0; i < by["mean"].size(); ++i)
            rows.push_back({std::to_string(i), number(by["mean"][i]), number(by["count"][i]),
                            number(by["smoothed"][i]), number(by["running_perplexity"][i])});
        addTable(files, "loss_by_position.csv",
                 {"position", "mean_loss", "count", "smoothed", "running_perplexity"}, rows);
        for (const char* kind : {"linear_bins", "exponential_bins"}) {
            rows.clear();
            for (const auto& b : loss[kind])
                rows.push_back({number(b["begin"]), number(b["end"]), number(b["center"]),
                                number(b["mean_loss"]), number(b["count"])});
            const auto name = std::string(kind == std::string("linear_bins") ? "loss_linear_bins"
                                                                             : "loss_exp_bins") +
                              ".csv";
            addTable(files, name, {"begin", "end", "center", "mean_loss", "count"}, rows);
        }
    }
    std::vector<std::vector<std::string>> gates, attention;
    for (const auto& t : report["traces"]) {
        const std::string path = t["path"].get<std::string>();
        for (const auto& layer : t.value("gates", nlohmann::json::array()))
            for (const auto& c : layer["channels"])
                gates.push_back({path, number(layer["layer"]), number(c["head"]),
                                 number(c["channel"]), number(c["mean_retention"]),
                                 number(c["p05"]), number(c["median"]), number(c["p95"]),
                                 number(c["timescale"]), number(c["horizon_median"]),
                                 c["kind"].get<std::string>()});
        for (const auto& layer : t.value("attention", nlohmann::json::array()))
            for (const auto& h : layer["heads"])
                attention.push_back({path, number(layer["layer"]), number(h["head"]),
                                     number(h["mean_entropy"]), number(h["sink_mass"]),
                                     number(h["mean_argmax_distance"]), number(h["mean_distance"]),
                                     number(h["negligible_block_fraction"])});
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
    return data::writeFilesAtomically(dir, files);
}

}  // namespace gatescope::core
