// A trace job: checkpoint + input -> instrumented forward -> one HDF5 trace, crash-safe, with
// progress and cancellation. The CLI's `gatescope trace` and the viewer's "run model" use it.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/input/documents.h"
#include "core/input/input.h"
#include "core/model/model.h"
#include "data/common/result.h"
#include "data/trace/trace_writer.h"

namespace gatescope::core {

struct TraceRequest {
    std::filesystem::path modelDir;
    InputSpec input;
    std::filesystem::path out;
    ComputeDType dtype = ComputeDType::Float32;
    std::string device = "cpu";
    int threads = 0;                ///< 0: all cores; also the writer's, unless it sets its own
    std::vector<int> layers;        ///< layers to record; empty: all
    std::vector<int> pyramidHeads;  ///< heads to build pyramids for; empty: all
    bool storeFactors = true;       ///< q, k, row normalizers, decay cumsums, extras
    bool storeValues = false;       ///< v as well (not needed to recompute tiles)
    bool storePyramids = true;
    /// Packed documents in the input (`--documents`): Mode::None is one document. Models without
    /// ModelInfo::packedDocuments refuse more than one (ErrorKind::Unsupported).
    DocumentSplit documents;
    int64_t pyramidFinestSide = 1024;  ///< finest stored level has at most this many cells a side
    data::TraceWriterOptions writer;
};

struct TraceProgress {
    double fraction = 0;  ///< of the whole job, [0, 1]
    std::string stage;    ///< "loading", "layer 3/24", "pyramids", "writing"
    int64_t tokens = 0;
};

struct TraceOutcome {
    std::filesystem::path path;
    std::string modelType;
    int64_t tokens = 0;
    int layersRecorded = 0;
    double seconds = 0;         ///< whole job, wall clock
    std::string device;         ///< checkDevice's description, as in the manifest
    std::string attentionPath;  ///< which attention implementation ran (ForwardResult's)
};

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
Result<TraceOutcome> runTraceJob(const TraceRequest& request,
                                 const std::function<void(const TraceProgress&)>& progress,
                                 const std::atomic<bool>* cancel,
                                 LoadedModelCache* models = nullptr);

}  // namespace gatescope::core
