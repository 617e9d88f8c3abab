// Private to core/models: Gated Slot Attention (Zhang et al. 2024) as released in fla
// (`fla.models.gsa`, model_type "gsa"): Llama-style pre-norm blocks of GatedSlotAttention and a
// SwiGLU MLP, no positional encoding.
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::gsa {

/// Throws ModelError on a bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadGsaModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::gsa
