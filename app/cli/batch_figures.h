// The figures a batch recipe asks for, rendered per finished run with the export painter
// (widgets/figures) into <output>/figures/<checkpoint>/. Builds without Qt skip them and say so.
#pragma once

#include <vector>

#include "core/batch/batch_plan.h"

namespace gatescope::app {

/// Renders every recipe figure of every finished run that is not on disk yet (so re-runs only add
/// what is missing). Returns how many were written; errors name the run and figure.
Result<int> writeBatchFigures(const core::BatchRecipe& recipe,
                              const std::vector<core::BatchRun>& plan);

}  // namespace gatescope::app
