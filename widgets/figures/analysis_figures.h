// Figures of `gatescope stats` reports (core/analysis): the effective-context map of a trace
// (layers x heads by position: the gate's and the attention's horizon, above the trace's loss on
// the same position bins) and a checkpoint series (loss, gate timescale and horizon, and with
// attention statistics sink mass, attention horizon and prunable fraction, against the training
// step). Painters only: the caller computes the report (blocking, possibly O(N^2) work).
#pragma once

#include <memory>

#include "core/analysis/stats_result.h"
#include "data/common/result.h"
#include "widgets/figures/figure.h"

namespace gatescope::widgets {

/// The effective-context map of report.traces[0]. Errors: Missing when no head of the trace has
/// a gate or an attention horizon (an ungated trace without attention statistics).
Result<std::unique_ptr<Figure>> makeContextFigure(const core::StatsReport& report,
                                                  const FigureOptions& options);

/// The series of report.series. Errors: Missing without a series, or with fewer than 2 points.
Result<std::unique_ptr<Figure>> makeSeriesFigure(const core::StatsReport& report,
                                                 const FigureOptions& options);

}  // namespace gatescope::widgets
