// Running a batch: a shard's share of the planned runs, resumable (a run whose status file says
// done and whose trace exists is skipped), each run's failure recorded without stopping the rest.
// The join that follows (core/batch/batch_join.h) needs no model. Shards coordinate only through
// files in the output folder, so any launcher (a loop, a Slurm array, mpirun) can drive them.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "core/batch/batch_plan.h"
#include "core/batch/run_status.h"

namespace gatescope::core {

struct Shard {
    int index = 0, count = 1;  ///< this process's share of balancedShards(plan, count)
};

/// Who runs a share of the batch, and where.
struct BatchWorker {
    Shard shard;           ///< the static share, used when launchId is empty
    std::string launchId;  ///< set: take runs from this launch's shared queue (RunClaims)
    std::string device;    ///< overrides the recipe's trace.device ("cuda:1"); "" keeps it
    int rank = 0;          ///< for status files and messages
    std::string host;
};

struct BatchProgress {
    int done = 0, total = 0;   ///< runs this process finished (any outcome) / its share
    bool sharedQueue = false;  ///< total is the launch's whole queue, shared with other processes
    std::string run;           ///< the run now starting or just finished
    std::string state;
    double runFraction = 0;  ///< progress inside the current run
};

struct ShardOutcome {
    int ran = 0, skipped = 0, failed = 0;
};

/// Runs the worker's runs, costliest first, on the calling thread: its static share, or (with a
/// launch id) every run it claims first from the launch's queue (core/batch/batch_schedule.h).
/// Writes the output folder's manifest.json (the recipe and the plan, so the batch can be re-run)
/// and status/<run>.json after each run (atomically). Cancel (may be null) stops between and
/// inside runs: the current run is left pending and the function returns Cancelled.
Result<ShardOutcome> runShard(const BatchRecipe& recipe, const std::vector<BatchRun>& plan,
                              const BatchWorker& worker,
                              const std::function<void(const BatchProgress&)>& progress,
                              const std::atomic<bool>* cancel);

}  // namespace gatescope::core
