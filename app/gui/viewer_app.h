// The viewer's entry point: `gatescope`, `gatescope FILE` and `gatescope open FILE` in GUI builds.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gatescope::app {

struct ViewerOptions {
    std::string trace;    ///< trace to open at start ("" for none)
    std::string script;   ///< automation script (tests, benchmarks); see viewer_script.h
    std::string compare;  ///< trace B: compare mode with `trace` once it is open ("" for none)
    std::vector<std::string> series;  ///< checkpoints of one run: the Checkpoint Series dock
};

/// Creates the QApplication and the main window, runs the event loop and returns the exit code
/// (a script's own exit code when one runs). GUI builds only.
int runViewer(int argc, char** argv, const ViewerOptions& options);

/// When runViewer started (for time-to-first-frame measurements).
std::chrono::steady_clock::time_point viewerStartTime();

}  // namespace gatescope::app
