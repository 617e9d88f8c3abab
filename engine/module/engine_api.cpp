// The module's one export (engine_api.h). Compiled into libgatescope_engine.so only: the static
// engine library that tests and the Python module link does not hold it.
#include "engine/module/engine_api.h"

namespace gatescope::core {
namespace {

const EngineApi kApi = [] {
    EngineApi api;
    api.runTraceJob = &runTraceJob;
    api.runShard = &runShard;
    api.runNiah = &runNiah;
    api.runTraining = &train::runTraining;
    api.checkDevice = &checkDevice;
    api.visibleCudaDevices = &visibleCudaDevices;
    return api;
}();

}  // namespace
}  // namespace gatescope::core

extern "C" __attribute__((visibility("default"))) const gatescope::core::EngineApi*
gatescope_engine_api() {
    return &gatescope::core::kApi;
}
