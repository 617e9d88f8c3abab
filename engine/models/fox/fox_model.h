// Private to core/models: the Forgetting Transformer (and the Transformer baseline through the same
// code, fgate_type "none"), model_type "forgetting_transformer-project_fox"; and the Transformer
// (LLaMA) baseline's own class, model_type "transformer-project_fox", through the same block.
#pragma once

#include <memory>

#include "core/model/model.h"

namespace gatescope::core::fox {

/// Throws ModelError on bad config or weights (loadModel converts it).
std::unique_ptr<Model> loadFoxModel(std::shared_ptr<const Checkpoint> checkpoint);

/// TransformerForCausalLM (config TransformerConfig): grouped-query heads, an optional sliding
/// window, RoPE; no forget gate. Throws ModelError as loadFoxModel.
std::unique_ptr<Model> loadTransformerModel(std::shared_ptr<const Checkpoint> checkpoint);

}  // namespace gatescope::core::fox
