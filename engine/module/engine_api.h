// The engine's entry points as one table, for the executable that loads engine/ at run time.
// LibTorch takes about half a second to start in every process that links it; the gatescope
// executable links no LibTorch and loads libgatescope_engine.so (this table and everything it
// reaches, with LibTorch) only when a command runs a model (app/engine_module.h). Commands that
// read traces, export figures or open the viewer start without it.
//
// The module resolves core/, data/ and kernels/ against the executable that loads it (which
// exports them), so a process holds one copy of each: one HDF5 lock, one set of registries.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/common/result.h"
#include "engine/jobs/batch_runner.h"
#include "engine/jobs/niah.h"
#include "engine/nn/device_check.h"
#include "engine/trace/trace_job.h"
#include "engine/train/trainer.h"

namespace gatescope::core {

/// Pointers to the engine's entry points (their headers document them). Built by the module, read
/// by the executable of the same build; `size` guards against a module left over from a build
/// whose table differs.
struct EngineApi {
    size_t size = sizeof(EngineApi);
    Result<TraceOutcome> (*runTraceJob)(const TraceRequest&, const TraceProgressFn&,
                                        const std::atomic<bool>*, LoadedModelCache*) = nullptr;
    Result<ShardOutcome> (*runShard)(const BatchRecipe&, const std::vector<BatchRun>&,
                                     const BatchWorker&,
                                     const std::function<void(const BatchProgress&)>&,
                                     const std::atomic<bool>*) = nullptr;
    Result<std::vector<NiahCell>> (*runNiah)(const NiahOptions&,
                                             const std::function<void(int, int)>&,
                                             const std::atomic<bool>*) = nullptr;
    Result<train::TrainSummary> (*runTraining)(
        const train::TrainOptions&, const std::function<void(const train::TrainProgress&)>&,
        const std::atomic<bool>*) = nullptr;
    Result<std::string> (*checkDevice)(std::string_view) = nullptr;
    int (*visibleCudaDevices)() = nullptr;
};

/// The module's file name, next to the executable in the build tree.
inline constexpr const char* kEngineModuleFile = "libgatescope_engine.so";
/// The symbol the module exports: `const EngineApi* gatescope_engine_api()`.
inline constexpr const char* kEngineApiSymbol = "gatescope_engine_api";

}  // namespace gatescope::core
