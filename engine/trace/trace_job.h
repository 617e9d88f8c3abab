// A trace job: checkpoint + input -> instrumented forward -> one HDF5 trace, crash-safe, with
// progress and cancellation. The CLI's `gatescope trace` and the viewer's "run model" use it.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "core/trace/trace_request.h"
#include "data/common/result.h"

namespace gatescope::core {

/// A checkpoint as a job uses it: the folder opened, its model and its tokenizer (defined in
/// trace_job.cpp).
struct LoadedModel;

/// Keeps the last job's loaded checkpoint for the next job on the same folder, so that a batch
/// reads and converts each checkpoint's weights (and copies them to the GPU) once per process
/// rather than once per run: seconds for a GB-size model. One model at a time (memory); not
/// thread-safe: one cache per worker.
class LoadedModelCache {
public:
    LoadedModelCache();
    ~LoadedModelCache();
    LoadedModelCache(const LoadedModelCache&) = delete;
    LoadedModelCache& operator=(const LoadedModelCache&) = delete;

    /// The model of `dir`: the kept one when it is the same folder, else loaded (and kept).
    /// Errors: those of Checkpoint::open, loadModel and loadTokenizer.
    Result<std::shared_ptr<LoadedModel>> load(const std::filesystem::path& dir);

private:
    std::filesystem::path m_dir;
    std::shared_ptr<LoadedModel> m_loaded;
};

/// Runs the job on the calling thread. `progress` is called on that thread; `cancel` (may be null)
/// is polled between layers and pyramid tiles: when set, the job stops with ErrorKind::Cancelled
/// and no file is left under request.out. Errors name the file and the problem (checkpoint,
/// tokenizer, input, model, disk); request.device "cuda" where no GPU can run fails first
/// (ErrorKind::Unsupported), before anything is loaded: never a silent CPU run.
/// `models` (may be null) supplies and keeps the loaded checkpoint across jobs.
Result<TraceOutcome> runTraceJob(const TraceRequest& request, const TraceProgressFn& progress,
                                 const std::atomic<bool>* cancel,
                                 LoadedModelCache* models = nullptr);

}  // namespace gatescope::core
