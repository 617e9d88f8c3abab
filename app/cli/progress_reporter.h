// Terminal progress for long CLI jobs: a redrawn bar with rate and ETA on a terminal, plain
// lines (every 10%) otherwise, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gatescope::app {

class ProgressReporter {
public:
    /// `unit` names what `count` counts ("tok"). Writes to stderr.
    explicit ProgressReporter(std::string unit);
    /// fraction in [0, 1]; count: units processed so far (for the rate).
    void update(double fraction, const std::string& stage, int64_t count);
    /// Ends the bar line (terminal) so later output starts on a fresh line.
    void finish();

private:
    std::string m_unit;
    bool m_terminal;
    int m_lastDecile = -1;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDraw;
    bool m_drawn = false;
};

}  // namespace gatescope::app
