// Private to core/models: Wall Attention (Tilde Research) language models, `model_type: "wall"`:
// fla-style pre-norm blocks of Wall Attention and a SwiGLU MLP. No checkpoints are published;
// the layout is gatescope's own (docs/wall-checkpoint-format.md).
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::wall {

/// Throws ModelError on a bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadWallModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::wall
