// `gatescope compare A.h5 B.h5`: per-layer/head attention divergences, gate differences and the
// per-position-bin loss difference of two traces of the same input; JSON or CSV on request.
#include <optional>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/report.h"
#include "core/analysis/analysis_limits.h"
#include "core/analysis/compare.h"
#include "core/input/list_syntax.h"
#include "core/trace/thread_limit.h"
#include "data/common/atomic_file.h"
#include "data/common/atomic_folder.h"

namespace gatescope::app {

namespace {

std::string num(double v) {
    return fmt::format("{:.6g}", v);
}

/// An absent value prints as an empty field.
std::string num(const std::optional<double>& v) {
    return v ? num(*v) : "";
}

/// A field of an optional part of a head's comparison (gates, attention); empty when absent.
template <typename Part>
std::string num(const std::optional<Part>& part, double Part::*field) {
    return part ? num((*part).*field) : "";
}

// Both tables are built in memory and written as one set (data/common/atomic_folder.h).
Status writeCsv(const core::TraceComparison& r, const std::filesystem::path& dir) {
    using Attention = core::AttentionDivergence;
    using Gates = core::GateDifference;
    std::vector<data::NamedFile> files;
    std::string heads = "layer,head,kl_ab,kl_ba,js,total_variation,gate_abs_diff,retention_diff\n";
    for (const auto& layer : r.layers)
        for (const auto& h : layer.heads)
            heads += fmt::format(
                "{},{},{},{},{},{},{},{}\n", layer.layer, h.head,
                num(h.attention, &Attention::klAB), num(h.attention, &Attention::klBA),
                num(h.attention, &Attention::js), num(h.attention, &Attention::totalVariation),
                num(h.gates, &Gates::absDiff), num(h.gates, &Gates::retentionDiff));
    files.emplace_back("heads.csv", std::move(heads));
    if (!r.loss) return data::writeFilesAtomically(dir, files);
    std::string bins = "kind,begin,end,center,mean_delta,count,share_of_gap\n";
    for (const auto& [kind, table] : {std::pair{"linear_bins", &r.loss->linearBins},
                                      std::pair{"exponential_bins", &r.loss->exponentialBins}})
        for (const auto& b : *table)
            bins += fmt::format("{},{},{},{},{},{},{}\n", kind, b.begin, b.end, num(b.center),
                                num(b.meanDelta), b.count, num(b.shareOfGap));
    files.emplace_back("loss_bins.csv", std::move(bins));
    return data::writeFilesAtomically(dir, files);
}

class CompareCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("a", m_a, "First trace (.h5)")->required();
        sub.add_option("b", m_b, "Second trace (.h5)")->required();
        sub.add_option("--layers", m_layers, "Layers, e.g. 0,2-5 (default: all in both)");
        sub.add_option("--heads", m_heads, "Heads (default: all)");
        sub.add_flag("--no-attention", m_noAttention, "Skip attention divergences (O(N^2) work)");
        sub.add_option("--bin-width", m_options.binWidth, "Linear bin width")
            ->capture_default_str()
            ->check(CLI::Range(int64_t{1}, core::kMaxBinWidth));
        sub.add_option("--bins-per-octave", m_options.binsPerOctave, "Exponential bins per octave")
            ->capture_default_str()
            ->check(CLI::Range(1, core::kMaxBinsPerOctave));
        sub.add_option("--threads", m_options.threads,
                       fmt::format("Workers (0: all cores; at most {})", core::maxThreadRequest()));
        sub.add_option("--json", m_json, "Write the comparison as JSON to this file");
        sub.add_option("--csv", m_csv, "Write heads.csv and loss_bins.csv into this folder");
    }

    int run() override {
        if (auto st = core::checkThreadCount(m_options.threads); !st)
            return reportError(Error{ErrorKind::Usage, st.error().message, {}, "--threads"});
        auto lists = core::parseLayersAndHeads(m_layers, m_heads);
        if (!lists) return reportError(lists.error());
        m_options.layers = lists->layers;
        m_options.heads = lists->heads;
        m_options.attention = !m_noAttention;
        m_options.cancel = &installInterruptFlag();
        auto a = data::TraceReader::open(m_a);
        if (!a) return reportError(a.error());
        auto b = data::TraceReader::open(m_b);
        if (!b) return reportError(b.error());
        auto r = core::compareTraces(**a, **b, m_options);
        if (!r) return reportError(r.error());
        fmt::print("alignment: {}\n", r->alignment.note);
        if (r->loss)
            fmt::print("loss A - B: mean {} nats over {} positions; A better at {} of them\n",
                       num(r->loss->meanDelta), r->loss->positions, num(r->loss->aBetterFraction));
        for (const auto& layer : r->layers)
            for (const auto& h : layer.heads)
                fmt::print("layer {:>2} head {:>2}: JS {} KL(A||B) {} TV {} |dg| {}\n", layer.layer,
                           h.head, num(h.attention, &core::AttentionDivergence::js),
                           num(h.attention, &core::AttentionDivergence::klAB),
                           num(h.attention, &core::AttentionDivergence::totalVariation),
                           num(h.gates, &core::GateDifference::absDiff));
        if (!m_json.empty())
            if (auto st = data::writeFileAtomically(m_json, r->toJson().dump(1)); !st)
                return reportError(st.error());
        if (!m_csv.empty())
            if (auto st = writeCsv(*r, m_csv); !st) return reportError(st.error());
        return kExitOk;
    }

private:
    std::string m_a, m_b, m_layers, m_heads, m_json, m_csv;
    bool m_noAttention = false;
    core::CompareOptions m_options;
};

}  // namespace

std::unique_ptr<Command> makeCompareCommand() {
    return std::make_unique<CompareCommand>();
}

}  // namespace gatescope::app
