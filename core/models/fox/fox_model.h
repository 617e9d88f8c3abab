// Private to core/models: the Forgetting Transformer (and the Transformer baseline through the same
// code, fgate_type "none"), model_type "forgetting_transformer-project_fox".
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::fox {

/// Throws ModelError on bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadFoxModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::fox
