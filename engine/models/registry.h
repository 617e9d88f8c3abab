// Opening a checkpoint as a model: the implementation is picked by config.json's model_type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint.h"
#include "core/model/model.h"
#include "data/common/result.h"

namespace gatescope::core {

/// Picks the implementation by the checkpoint's model_type (registry.cpp lists them).
/// Errors: unknown model_type (names it and lists the known ones), missing/unexpected tensors,
/// wrong shapes or dtypes, config options that change the math and are not supported.
Result<std::unique_ptr<Model>> loadModel(std::shared_ptr<const Checkpoint> checkpoint);

/// The model_type strings loadModel accepts.
std::vector<std::string> knownModelTypes();

}  // namespace gatescope::core
