// Private to engine/models/wall: the state_dict of a `model_type: "wall"` checkpoint (fla naming,
// docs/wall-checkpoint-format.md): the shared FlaStack plus each layer's token mixer.
#pragma once

#include <vector>

#include "engine/models/wall/wall_config.h"
#include "engine/nn/fla_stack.h"
#include "engine/nn/layers.h"

namespace gatescope::core::wall {

struct WallLayerWeights {
    Linear q;  ///< [heads * head_dim, d]
    Linear k;  ///< [kv_heads * head_dim, d]
    Linear v;  ///< [kv_heads * head_dim, d]
    Linear g;  ///< gate logits, weight [gate_heads * gate_dim, d] + bias; empty when gate_dim 0
    Linear o;  ///< [d, heads * head_dim]
    Linear f;  ///< scalar gate logits (use_scalar_gate): weight [heads, d] + bias [heads]; or empty
    torch::Tensor sink;  ///< sink logits [heads] float32 on the host (use_sink_bias); or undefined
};

struct WallWeights {
    FlaStack stack;
    std::vector<WallLayerWeights> layers;
};

/// Takes every tensor the config implies; throws ModelError on missing, misshapen or unexpected
/// tensors, naming the checkpoint file and tensor.
WallWeights loadWallWeights(const WallConfig& config, WeightStore& store);

}  // namespace gatescope::core::wall
