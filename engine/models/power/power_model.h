// Private to core/models: Manifest AI's power-attention "power transformer" (train/model.py, the
// nanoGPT-style GPT with gated power attention; also its 'sdpa' softmax baseline), model_type
// "power", in the layout ../shared/fixtures/README.md describes.
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::power {

/// Throws ModelError on bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadPowerModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::power
