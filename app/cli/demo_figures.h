// The figures `gatescope demo` writes when it cannot (or is told not to) open the viewer: each
// model's layers x heads grid, the FoX retention of the layer where the two models differ most,
// both models' maps of that head, and the comparison panel. GUI builds only.
#pragma once

#include <filesystem>
#include <vector>

#include "core/analysis/compare_result.h"
#include "data/common/result.h"

namespace gatescope::app {

/// Renders into `dir` (created) from traces `a` and `b` of one text and their compareTraces
/// result. Returns the files written. Errors name the trace or figure. Main thread only.
Result<std::vector<std::filesystem::path>> writeDemoFigures(const std::filesystem::path& a,
                                                            const std::filesystem::path& b,
                                                            const core::TraceComparison& comparison,
                                                            const std::filesystem::path& dir);

}  // namespace gatescope::app
