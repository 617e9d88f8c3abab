// `gatescope demo`: the README's main job. Traces a bundled sample text with two bundled trained
// sample models (FoX and the RoPE Transformer, resources/models), compares them, and opens the
// viewer on both; without a display (or with --headless) it writes the comparison and exported
// figures instead and says where.
#include <cstdlib>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "app/cli/demo_figures.h"
#include "app/cli/demo_intervention.h"
#include "app/cli/display_probe.h"
#include "app/cli/interrupt.h"
#include "app/cli/offscreen_figures.h"
#include "app/cli/progress_reporter.h"
#include "app/cli/report.h"
#include "app/engine_module.h"
#include "core/analysis/compare.h"
#include "data/common/atomic_file.h"

namespace gatescope::app {

namespace {

constexpr const char* kSamples = GATESCOPE_SOURCE_DIR "/resources";

class DemoCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("--out", m_out, "Output folder (traces, comparison, figures)")
            ->capture_default_str();
        sub.add_option("--text", m_text, "Text to trace")->capture_default_str();
        sub.add_option("--models", m_models, "The two checkpoints to compare")
            ->expected(2)
            ->capture_default_str();
        sub.add_option("--tokens", m_tokens, "Trace the first N tokens of the text (0: all)")
            ->capture_default_str();
        sub.add_flag("--headless", m_headless, "Write figures instead of opening the viewer");
        sub.add_option("--script", m_script,
                       "With a display: run a viewer automation script, then quit (tests)");
    }

    int run() override {
        const std::filesystem::path out = m_out;
        std::error_code ec;
        std::filesystem::create_directories(out, ec);
        if (ec)
            return reportError(
                Error{ErrorKind::Io, "cannot create folder: " + ec.message(), out.string(), {}});
        std::vector<std::filesystem::path> traces;
        for (const auto& model : m_models) {
            auto trace = traceWith(model, out);
            if (!trace) return reportError(trace.error());
            traces.push_back(*trace);
        }
        auto comparison = compare(traces[0], traces[1], out / "compare.json");
        if (!comparison) return reportError(comparison.error());
        printComparison(*comparison);
        auto intervention = runDemoIntervention(m_models[0], m_text, m_tokens, traces[0], out);
        if (!intervention) return reportError(intervention.error());
        printIntervention(*intervention, out);
        const bool display = !m_headless && displayReachable();
        if (display && canRenderFigures()) {
            fmt::print("opening the viewer on {} and {}\n", traces[0].string(), traces[1].string());
            return openViewer({traces[0].string(), traces[1].string()}, m_script);
        }
        if (!canRenderFigures()) {
            fmt::print("this build has no Qt: traces and comparison are in {}\n", out.string());
            return kExitOk;
        }
        auto figures = writeDemoFigures(traces[0], traces[1], *comparison, out / "figures");
        if (!figures) return reportError(figures.error());
        fmt::print("{}: wrote {} figures to {}\ncompare them in the viewer: `gatescope {} {}`\n",
                   m_headless ? "headless" : "no display", figures->size(),
                   (out / "figures").string(), traces[0].string(), traces[1].string());
        for (const auto& f : *figures)
            fmt::print("  {}\n", f.string());
        return kExitOk;
    }

private:
    Result<std::filesystem::path> traceWith(const std::filesystem::path& model,
                                            const std::filesystem::path& out) {
        core::TraceRequest request;
        request.modelDir = model;
        request.input.path = m_text;
        if (m_tokens > 0) request.input.end = m_tokens;
        request.out = out / (model.filename().string() + ".h5");
        auto engine = loadEngine();
        if (!engine) return engine.error();
        ProgressReporter bar("tok");
        auto outcome = (*engine)->runTraceJob(
            request,
            [&](const core::TraceProgress& p) { bar.update(p.fraction, p.stage, p.tokens); },
            &installInterruptFlag(), nullptr);
        bar.finish();
        if (!outcome) return outcome.error();
        fmt::print("traced {} with {} ({} tokens) in {:.1f}s: {}\n", m_text, model.string(),
                   outcome->tokens, outcome->seconds, outcome->path.string());
        return outcome->path;
    }

    static Result<core::TraceComparison> compare(const std::filesystem::path& a,
                                                 const std::filesystem::path& b,
                                                 const std::filesystem::path& json) {
        auto ra = data::TraceReader::open(a);
        if (!ra) return ra.error();
        auto rb = data::TraceReader::open(b);
        if (!rb) return rb.error();
        core::CompareOptions options;
        options.binWidth = 1024;
        options.cancel = &installInterruptFlag();
        auto result = core::compareTraces(**ra, **rb, options);
        if (!result) return result.error();
        auto table = result->toJson();
        table["loss"].erase("delta");  // per token: in the traces already
        if (auto st = data::writeFileAtomically(json, table.dump(2) + "\n"); !st) return st.error();
        return result;
    }

    static void printComparison(const core::TraceComparison& c) {
        if (!c.loss) return;
        const auto& loss = *c.loss;
        fmt::print(
            "loss A - B: {:+.4f} nats/token over {} positions; A better at {:.0f}% of them\n",
            loss.meanDelta, loss.positions, 100 * loss.aBetterFraction);
        for (const auto& bin : loss.linearBins) {
            if (bin.count == 0) continue;
            fmt::print("  positions {:>6}-{:<6} mean delta {:+.4f}\n", bin.begin, bin.end,
                       *bin.meanDelta);
        }
    }

    static void printIntervention(const DemoIntervention& iv, const std::filesystem::path& out) {
        if (!iv.shown) {
            fmt::print("no intervention shown: {}\n", iv.note);
            return;
        }
        fmt::print(
            "A without forgetting in layer {} (--intervene gate=1@layers={}): loss {:+.4f} "
            "nats/token within the {}-token training length, {:+.4f} beyond it ({})\n",
            kDemoNoForgetLayer, kDemoNoForgetLayer, iv.deltaWithin, kDemoTrainingLength,
            iv.deltaBeyond, (out / "intervention.json").string());
    }

    std::string m_out = "out/demo";
    std::string m_text = std::string(kSamples) + "/samples/held_out.py";
    std::vector<std::string> m_models = {std::string(kSamples) + "/models/fox",
                                         std::string(kSamples) + "/models/transformer"};
    int64_t m_tokens = 8192;
    bool m_headless = false;
    std::string m_script;
};

}  // namespace

std::unique_ptr<Command> makeDemoCommand() {
    return std::make_unique<DemoCommand>();
}

}  // namespace gatescope::app
