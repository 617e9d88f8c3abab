// Private to core/models: GatedFWA as released in the first author's nanochat fork
// (nanochat/gpt_gated.py, GPTGated), model_type "gated_fwa".
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::gatedfwa {

/// Throws ModelError on bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadGatedFwaModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::gatedfwa
