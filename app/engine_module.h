// The model engine, loaded when a command first runs a model (engine/module/engine_api.h says
// why: LibTorch's start-up is half a second in every process that links it).
#pragma once

#include "data/common/result.h"
#include "engine/module/engine_api.h"

namespace gatescope::app {

/// The engine's entry points from libgatescope_engine.so: next to the executable, else where the
/// build put it. Loaded once per process, on the first call, from any thread (the viewer calls it
/// from its job thread); the table stays valid for the life of the process. Errors (the same
/// error on every later call): Unsupported naming the module file and what dlopen said, or that
/// no module was found where it was looked for.
Result<const core::EngineApi*> loadEngine();

}  // namespace gatescope::app
