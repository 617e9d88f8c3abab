// `gatescope open FILE [FILE_B]`: the viewer on a trace, or compare mode on two traces (GUI
// builds). `--script` drives it for tests and benchmarks (see app/gui/viewer_script.h).
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "app/cli/report.h"
#ifdef GATESCOPE_WITH_GUI
#include "app/gui/viewer_app.h"
#endif

namespace gatescope::app {

namespace {

class OpenCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("traces", m_traces,
                       "Trace to open (.h5); a second trace of the same input opens compare mode "
                       "(A | B | A - B, locked); with --series, two or more traces");
        sub.add_flag("--series", m_series,
                     "The traces are one text through successive checkpoints of one run: the "
                     "Checkpoint Series dock lists them by step (a row opens its trace); the "
                     "last opens");
        sub.add_option("--script", m_script,
                       "Run an automation script (screenshots, hover, benchmarks), then quit");
    }

    int run() override {
        if (m_series && m_traces.size() < 2)
            return reportError(
                Error{ErrorKind::Usage, "--series needs two or more traces", {}, {}});
        if (!m_series && m_traces.size() > 2)
            return reportError(Error{ErrorKind::Usage,
                                     "open takes one trace, or two for compare mode (--series "
                                     "for the checkpoints of a run)",
                                     {},
                                     {}});
        return openViewer(m_traces, m_script, m_series);
    }

private:
    std::vector<std::string> m_traces;
    std::string m_script;
    bool m_series = false;
};

}  // namespace

int openViewer(const std::vector<std::string>& traces, const std::string& script, bool series) {
    const std::string a = traces.empty() ? std::string() : series ? traces.back() : traces[0];
    const std::string b = traces.size() > 1 && !series ? traces[1] : std::string();
#ifdef GATESCOPE_WITH_GUI
    static char name[] = "gatescope";
    char* argv[] = {name, nullptr};
    int argc = 1;
    return runViewer(argc, argv,
                     ViewerOptions{a, script, b, series ? traces : std::vector<std::string>{}});
#else
    (void)script;
    (void)b;
    fmt::print(stderr,
               "gatescope: this build has no viewer (configured with GATESCOPE_GUI=OFF); use "
               "`gatescope info {}` to describe the trace\n",
               a.empty() ? "FILE" : a);
    return kExitUsage;
#endif
}

std::unique_ptr<Command> makeOpenCommand() {
    return std::make_unique<OpenCommand>();
}

}  // namespace gatescope::app
