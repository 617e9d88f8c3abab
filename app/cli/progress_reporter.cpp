#include "app/cli/progress_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/core.h>

namespace gatescope::app {

ProgressReporter::ProgressReporter(std::string unit)
    : m_unit(std::move(unit)),
      m_terminal(isatty(STDERR_FILENO) != 0),
      m_start(std::chrono::steady_clock::now()),
      m_lastDraw(m_start) {}

void ProgressReporter::update(double fraction, const std::string& stage, int64_t count) {
    using namespace std::chrono;
    const auto now = steady_clock::now();
    const double elapsed = duration<double>(now - m_start).count();
    const double rate = elapsed > 0 ? fraction * count / elapsed : 0;  // units of work done/s
    const double eta = fraction > 0.01 ? elapsed * (1 - fraction) / fraction : 0;
    if (m_terminal) {
        if (fraction < 1 && duration<double>(now - m_lastDraw).count() < 0.1 && m_drawn) return;
        constexpr int kWidth = 30;
        const int filled = std::clamp(static_cast<int>(fraction * kWidth), 0, kWidth);
        fmt::print(stderr, "\r[{}{}] {:3.0f}%  {:<14} {:8.0f} {}/s  ETA {:5.1f}s ",
                   std::string(filled, '#'), std::string(kWidth - filled, ' '), fraction * 100,
                   stage, rate, m_unit, eta);
        std::fflush(stderr);
        m_lastDraw = now;
        m_drawn = true;
        return;
    }
    const int decile = static_cast<int>(fraction * 10);
    if (decile == m_lastDecile) return;
    m_lastDecile = decile;
    fmt::print(stderr, "progress {:3.0f}% {} ({:.0f} {}/s, ETA {:.1f}s)\n", fraction * 100, stage,
               rate, m_unit, eta);
}

void ProgressReporter::finish() {
    if (m_terminal && m_drawn) fmt::print(stderr, "\n");
}

}  // namespace gatescope::app
