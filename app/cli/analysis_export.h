// `gatescope export --figure context|series`: the figures of stats reports. The report is
// computed here (blocking; with --attention, O(N^2) work per head in bounded memory, interruptible
// with Ctrl-C) and drawn by widgets/figures/analysis_figures.h. GUI builds only.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/stats_report.h"
#include "widgets/figures/figure.h"

namespace gatescope::app {

struct AnalysisExport {
    std::vector<std::string> traces;  ///< context: one; series: two or more of one text
    widgets::FigureOptions figure;    ///< kind Context or Series, colormap, size
    core::StatsOptions stats;         ///< attention, mass share, horizon threshold, bins, steps
    std::string out;
    int dpi = 150;
};

/// Computes the report, draws the figure and writes it atomically; returns the exit code after
/// reporting any error (naming the trace or the option).
int exportAnalysisFigure(AnalysisExport request);

}  // namespace gatescope::app
