// `gatescope stats TRACE...`: loss curves over the traces (documents of one model), gate statistics
// and (with --attention) per-head attention statistics, printed as a summary, and written as JSON
// and CSV tables on request.
#include <cmath>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/option_checks.h"
#include "app/cli/report.h"
#include "core/analysis/analysis_limits.h"
#include "core/analysis/effective_context.h"
#include "core/analysis/stats_report.h"
#include "core/input/list_syntax.h"
#include "core/trace/thread_limit.h"
#include "data/common/atomic_file.h"

namespace gatescope::app {

namespace {

void printContext(const core::StatsReport& r, const core::TraceStats& t) {
    const auto heads = core::effectiveContext(t);
    if (heads.empty()) return;
    fmt::print(
        "  effective context (median over queries, tokens; attention {:.0f}% of the mass, gate "
        "retention {:g}):\n",
        100 * r.massShare, r.retention);
    for (const auto& h : heads) {
        auto median = [](const core::PositionProfile* p) {
            return p ? fmt::format("{:.0f}", p->median) : std::string("-");
        };
        fmt::print("    layer {:>2} head {:>2}: attention {:>6}, gate {:>6}\n", h.layer, h.head,
                   median(h.attention), median(h.gate));
    }
}

void printEvents(const core::TraceStats& t) {
    if (!t.gateEvents) return;
    const auto& e = *t.gateEvents;
    fmt::print("  gate events (retention below {:g}): {}{}\n", e.retention, e.total,
               e.total > 0 ? ", strongest:" : "");
    for (std::size_t i = 0; i < std::min<std::size_t>(e.events.size(), 10); ++i) {
        const auto& ev = e.events[i];
        fmt::print("    layer {:>2} head {:>2} channel {:>3} position {:>7}: {:.4f} at {:?}\n",
                   ev.layer, ev.head, ev.channel, ev.position, ev.retention, ev.context);
    }
}

void printSeries(const core::SeriesReport& series) {
    fmt::print("checkpoint series ({} points):\n", series.points.size());
    fmt::print("  {:>10} {:>10} {:>10} {:>10} {:>8} {:>10} {:>10}  trace\n", "step", "loss",
               "timescale", "gate hor.", "sink", "attn hor.", "prunable");
    for (const auto& p : series.points)
        fmt::print("  {:>10} {:>10.4f} {:>10.1f} {:>10.1f} {:>8.3f} {:>10.1f} {:>10.3f}  {}\n",
                   p.step, p.meanLoss, p.overall.timescaleMedian, p.overall.gateHorizonMedian,
                   p.overall.sinkMass, p.overall.attentionHorizonMedian, p.overall.prunableFraction,
                   p.path);
}

void printSummary(const core::StatsReport& r) {
    if (r.loss) {
        const auto& loss = *r.loss;
        fmt::print(
            "loss over {} document(s): mean {:.4f} nats; best-context loss {:.4f} at "
            "context ~{:.0f}\n",
            loss.documents, loss.meanLoss, loss.bestContext.loss, loss.bestContext.contextLength);
        fmt::print("  exponential bins ({} per octave): ", loss.binsPerOctave);
        for (const auto& b : loss.exponentialBins)
            if (b.count > 0) fmt::print("{:.0f}:{:.3f} ", b.center, b.meanLoss);
        fmt::print("\n");
    }
    for (const auto& t : r.traces) {
        fmt::print("{} ({}, {} tokens)\n", t.path, t.modelType, t.nTokens);
        for (const auto& g : t.gates)
            fmt::print(
                "  layer {:>2} gates: timescale min/median/max {:.1f}/{:.1f}/{:.1f} tokens; "
                "always-on {}, dynamic {}, static {}\n",
                g.layer, g.timescaleMin, g.timescaleMedian, g.timescaleMax, g.alwaysOn, g.dynamic,
                g.staticChannels);
        for (const auto& a : t.attention)
            for (const auto& h : a.heads)
                fmt::print(
                    "  layer {:>2} head {:>2}: entropy {:.3f}, sink {:.3f}, argmax distance "
                    "{:.1f}, mean distance {:.1f}, negligible blocks {:.3f}\n",
                    a.layer, h.head, h.meanEntropy, h.sinkMass, h.meanArgmaxDistance,
                    h.meanDistance, h.negligibleBlockFraction);
        printContext(r, t);
        printEvents(t);
    }
    if (r.series) printSeries(*r.series);
}

class StatsCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("traces", m_paths,
                       "Trace files (.h5); their per-token losses are the "
                       "documents of the loss curves")
            ->required();
        sub.add_flag("--attention", m_attention,
                     "Also per-head attention statistics (exact, O(N^2) work, bounded memory)");
        sub.add_flag("--no-gates", m_noGates, "Skip gate statistics");
        sub.add_option("--layers", m_layers, "Layers, e.g. 0,2-5 (default: all recorded)");
        sub.add_option("--heads", m_heads, "Heads for --attention (default: all)");
        sub.add_option("--bin-width", m_options.linearBinWidth, "Linear bin width in positions")
            ->capture_default_str()
            ->check(CLI::Range(int64_t{1}, core::kMaxBinWidth));
        sub.add_option("--bins-per-octave", m_options.binsPerOctave,
                       "Exponential bins per doubling of the context")
            ->capture_default_str()
            ->check(CLI::Range(1, core::kMaxBinsPerOctave));
        sub.add_option("--smooth", m_options.smoothingWindow,
                       "Centered moving-average window (positions)")
            ->capture_default_str()
            ->check(CLI::Range(1, core::kMaxSmoothingWindow));
        sub.add_option("--horizon-threshold", m_options.gate.horizonThreshold,
                       "Memory horizon: cumulative retention threshold, in (0, 1)")
            ->capture_default_str()
            ->check(openUnitInterval());
        sub.add_option("--mass-share", m_options.attentionOptions.massShare,
                       "Attention horizon (with --attention): the share of each query's attention "
                       "mass its most recent keys hold, in (0, 1]")
            ->capture_default_str()
            ->check(CLI::Range(0.0, 1.0));
        sub.add_flag("--gate-events", m_options.gateEvents,
                     "List where gates forget hard (retention below --event-retention), strongest "
                     "first, with the tokens that trigger them");
        sub.add_option("--event-retention", m_options.gateEventOptions.retention,
                       "Gate events: retention exp(g) below this at one token, in (0, 1)")
            ->capture_default_str()
            ->check(openUnitInterval());
        sub.add_option("--events", m_options.gateEventOptions.limit,
                       "Gate events: how many to keep per trace, strongest first")
            ->capture_default_str()
            ->check(CLI::Range(int64_t{0}, int64_t{1} << 24));
        sub.add_flag("--series", m_options.series,
                     "The traces are one text through successive checkpoints of a run: a table of "
                     "loss, gate timescale and horizon (and with --attention sink mass, attention "
                     "horizon, prunable fraction) against the training step");
        sub.add_option("--steps", m_options.steps,
                       "Series: the training step of each trace, e.g. 1000,2000,4000 (default: the "
                       "last number in each checkpoint folder's name, else the order given)")
            ->delimiter(',')
            ->check(CLI::NonNegativeNumber);
        sub.add_option("--threads", m_options.attentionOptions.threads,
                       fmt::format("Workers (0: all cores; at most {})", core::maxThreadRequest()));
        sub.add_option("--json", m_json, "Write the whole report as JSON to this file");
        sub.add_option("--csv", m_csv, "Write CSV tables into this folder");
    }

    int run() override {
        if (auto st = core::checkThreadCount(m_options.attentionOptions.threads); !st)
            return reportError(Error{ErrorKind::Usage, st.error().message, {}, "--threads"});
        auto lists = core::parseLayersAndHeads(m_layers, m_heads);
        if (!lists) return reportError(lists.error());
        m_options.layers = lists->layers;
        m_options.attention = m_attention;
        m_options.gates = !m_noGates;
        m_options.attentionOptions.heads = lists->heads;
        m_options.attentionOptions.cancel = &installInterruptFlag();
        std::vector<std::shared_ptr<const data::TraceReader>> traces;
        for (const auto& p : m_paths) {
            auto reader = data::TraceReader::open(p);
            if (!reader) return reportError(reader.error());
            traces.push_back(*reader);
        }
        auto report = core::statsReport(traces, m_options);
        if (!report) return reportError(report.error());
        printSummary(*report);
        if (!m_json.empty()) {
            if (auto st = data::writeFileAtomically(m_json, report->toJson().dump(1)); !st)
                return reportError(st.error());
        }
        if (!m_csv.empty()) {
            if (auto st = core::writeStatsCsv(*report, m_csv); !st) return reportError(st.error());
        }
        return kExitOk;
    }

private:
    std::vector<std::string> m_paths;
    core::StatsOptions m_options;
    bool m_attention = false, m_noGates = false;
    std::string m_layers, m_heads, m_json, m_csv;
};

}  // namespace

std::unique_ptr<Command> makeStatsCommand() {
    return std::make_unique<StatsCommand>();
}

}  // namespace gatescope::app
