// A batch run's status file (status/<run>.json in the output folder): written by the shard that
// ran it, read by every later shard (to skip finished runs) and by the join.
#pragma once

#include <cstdint>
#include <string>

#include "core/batch/batch_plan.h"
#include "data/common/result.h"

namespace gatescope::core {

struct RunStatus {
    std::string id;
    std::string state;  ///< "done", "failed", "pending"
    int64_t tokens = 0;
    double seconds = 0;
    double meanLoss = 0;
    std::string error;
    std::string device;    ///< what it ran on ("cpu", "cuda:1: NVIDIA H100 ... GPU-<uuid>")
    std::string host;      ///< the machine and rank that ran it ("gpu-node-3 rank 1")
    bool skipped = false;  ///< already done by an earlier invocation
};

/// The recorded status of a run; "pending" when there is none, it is unreadable, or its trace is
/// gone.
RunStatus readRunStatus(const BatchRecipe& recipe, const BatchRun& run);

/// Writes `status` as the run's status file, atomically. Errors: a path outside the output
/// folder, or the write (naming the file).
Status writeRunStatus(const BatchRecipe& recipe, const BatchRun& run, const RunStatus& status);

}  // namespace gatescope::core
