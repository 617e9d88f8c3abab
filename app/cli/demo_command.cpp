// `gatescope demo`: the README's main job. Writes a small FoX (Pro) checkpoint with seeded random
// weights, traces the bundled sample text with it, and prints the trace's summary.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/progress_reporter.h"
#include "app/cli/report.h"
#include "core/sample/random_fox_checkpoint.h"
#include "core/trace/trace_job.h"

namespace gatescope::app {

namespace {

class DemoCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("--out", m_out, "Trace to write")->capture_default_str();
        sub.add_option("--text", m_text, "Text to trace")->capture_default_str();
        sub.add_option("--model-dir", m_modelDir,
                       "Where to write the sample checkpoint (default: next to --out)");
    }

    int run() override {
        const std::filesystem::path out = m_out;
        const std::filesystem::path modelDir =
            m_modelDir.empty() ? out.parent_path() / "sample-fox-pro" : std::filesystem::path(m_modelDir);
        core::RandomFoxSpec spec;  // 2 layers, d 64, 4 heads, byte-level vocabulary
        spec.layers = 2;
        if (auto st = core::writeRandomFoxCheckpoint(modelDir, spec); !st) {
            return reportError(st.error());
        }
        fmt::print("sample checkpoint: {} (FoX Pro, random weights)\n", modelDir.string());

        core::TraceRequest request;
        request.modelDir = modelDir;
        request.input.path = m_text;
        request.out = out;
        ProgressReporter bar("tok");
        auto outcome = core::runTraceJob(
            request,
            [&](const core::TraceProgress& p) { bar.update(p.fraction, p.stage, p.tokens); },
            &installInterruptFlag());
        bar.finish();
        if (!outcome) return reportError(outcome.error());
        fmt::print("wrote {} ({} tokens) in {:.2f}s\n\n", outcome->path.string(), outcome->tokens,
                   outcome->seconds);
        return printTraceInfo(out.string(), false);
    }

private:
    std::string m_out = "out/sample-trace.h5";
    std::string m_text = GATESCOPE_SOURCE_DIR "/resources/samples/forgetting.txt";
    std::string m_modelDir;
};

}  // namespace

std::unique_ptr<Command> makeDemoCommand() {
    return std::make_unique<DemoCommand>();
}

}  // namespace gatescope::app
