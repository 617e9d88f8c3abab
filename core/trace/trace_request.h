// What a trace job is asked for and what it reports: the request, its progress and its outcome,
// and the shape of the function that runs one (engine/trace/trace_job.h's runTraceJob). These
// types have no LibTorch in them, so the viewer and batch recipes name jobs without linking the
// engine; app/ hands the viewer the engine's function (TraceJobFunction).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/input/documents.h"
#include "core/input/input.h"
#include "core/model/intervention.h"
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
    /// `--intervene`, in order (core/model/intervention.h); checked against the model and the
    /// input by the job (planInterventions) and recorded in the manifest ("interventions").
    std::vector<Intervention> interventions;
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

using TraceProgressFn = std::function<void(const TraceProgress&)>;

/// Runs one job on the calling thread: `progress` is called on that thread, `cancel` (may be
/// null) is polled and, when set, ends the job with ErrorKind::Cancelled leaving no file at
/// request.out. The engine's runTraceJob is one; the viewer receives it from app/.
using TraceJobFunction = std::function<Result<TraceOutcome>(
    const TraceRequest&, const TraceProgressFn&, const std::atomic<bool>* cancel)>;

}  // namespace gatescope::core
