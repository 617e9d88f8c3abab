// Which runs a batch process takes, and in what order. Runs are taken costliest first (a 64k-token
// run costs far more than a 1k one, so starting the long ones early keeps the last process from
// finishing alone). Processes of one launch (mpirun, srun) share one queue: each takes the next
// run nobody has claimed, through claim files in the output folder, so a fast rank simply does
// more. Shards started apart (--shard I/K, Slurm arrays) cannot wait for each other's progress:
// they get a static split balanced by cost.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/batch/batch_plan.h"

namespace gatescope::core {

/// A run's estimated cost for ordering and splitting: N + N^2 / 4096 for its N tokens (the
/// per-token work of the projections dominates short runs, attention's N^2 long ones). Runs that
/// could not be planned cost 0.
double runCost(const BatchRun& run);

/// Plan indices, costliest first; equal costs keep plan order.
std::vector<int> costliestFirst(const std::vector<BatchRun>& plan);

/// A static split into `count` shards: each run, costliest first, goes to the shard with the
/// least cost so far (the longest-processing-time rule; ties go to the lower shard). Returns the
/// shard of every run, by plan index. The same plan always gives the same split.
std::vector<int> balancedShards(const std::vector<BatchRun>& plan, int count);

/// One launch's shared queue: a run belongs to the process that first creates its claim file
/// (O_CREAT | O_EXCL, atomic on local and NFS file systems) under `folder`
/// (`<output>/claims/<launch id>`). Claims of an earlier launch live in another folder and mean
/// nothing now, so runs a killed process had claimed run again on the next launch.
class RunClaims {
public:
    /// `owner` is written into each claim (JSON: rank, host, pid, device), for people and tests.
    RunClaims(std::filesystem::path folder, std::string owner);

    /// Whether this process now owns `run` (false: another process claimed it first).
    /// Errors: Io naming the claim file when it can be neither created nor found.
    Result<bool> tryClaim(const BatchRun& run) const;

    const std::filesystem::path& folder() const { return m_folder; }

private:
    std::filesystem::path m_folder;
    std::string m_owner;
};

}  // namespace gatescope::core
