// The join of a batch: every run's status gathered into the summary, the per-checkpoint analyses
// and the HDF5 index of per-token losses. Reads only the output folder, so it runs after any
// launcher's shards and needs no model.
#pragma once

#include <vector>

#include "core/batch/batch_plan.h"
#include "data/common/result.h"

namespace gatescope::core {

struct JoinOutcome {
    int done = 0, failed = 0, pending = 0;
};

/// Gathers every run's status: summary.csv and summary.json, analyses/<checkpoint>/ (stats.json and
/// CSV tables over its finished traces) and index.h5 (virtual dataset of per-token losses).
/// Runs without a status are "pending".
Result<JoinOutcome> joinBatch(const BatchRecipe& recipe, const std::vector<BatchRun>& plan);

}  // namespace gatescope::core
