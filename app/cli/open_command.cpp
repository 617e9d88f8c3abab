// `gatescope open FILE [FILE_B]`: the viewer on a trace, or compare mode on two traces (GUI
// builds). `--script` drives it for tests and benchmarks (see app/gui/viewer_script.h).
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
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
                       "(A | B | A - B, locked)")
            ->expected(0, 2);
        sub.add_option("--script", m_script,
                       "Run an automation script (screenshots, hover, benchmarks), then quit");
    }

    int run() override {
#ifdef GATESCOPE_WITH_GUI
        if (m_traces.size() == 2) {
            static char name[] = "gatescope";
            char* argv[] = {name, nullptr};
            int argc = 1;
            return runViewer(argc, argv, ViewerOptions{m_traces[0], m_script, m_traces[1]});
        }
#endif
        return openViewer(m_traces.empty() ? std::string() : m_traces[0], m_script);
    }

private:
    std::vector<std::string> m_traces;
    std::string m_script;
};

}  // namespace

int openViewer(const std::string& trace, const std::string& script) {
#ifdef GATESCOPE_WITH_GUI
    static char name[] = "gatescope";
    char* argv[] = {name, nullptr};
    int argc = 1;
    return runViewer(argc, argv, ViewerOptions{trace, script});
#else
    (void)script;
    fmt::print(stderr,
               "gatescope: this build has no viewer (configured with GATESCOPE_GUI=OFF); use "
               "`gatescope info {}` to describe the trace\n",
               trace.empty() ? "FILE" : trace);
    return kExitUsage;
#endif
}

std::unique_ptr<Command> makeOpenCommand() {
    return std::make_unique<OpenCommand>();
}

}  // namespace gatescope::app
