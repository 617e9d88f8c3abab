// Private to engine/models/power: one pre-LN block of train/model.py,
// x + attn(LN(x)) then x + mlp(LN(x)), with the layer's probe record.
#pragma once

#include "core/model/model.h"
#include "core/model/probe.h"
#include "engine/models/power/power_config.h"
#include "engine/models/power/power_weights.h"
#include "engine/nn/layers.h"

namespace gatescope::core::power {

/// Everything a block needs besides its weights. sin/cos come from sequenceRotaryTables(N, d).
struct BlockContext {
    const PowerConfig& config;
    const Precision& precision;
    const torch::Tensor& sin;
    const torch::Tensor& cos;
    int threads = 0;
    const RunOptions* options =
        nullptr;    ///< interventions (engine/nn/interventions.h); may be null
    int layer = 0;  ///< the block's layer, for interventions
};

/// LayerNorm as train/model.py applies it: eps 1e-9 for float32 inputs, 1e-5 otherwise; float32
/// output (what autocast produces).
torch::Tensor modelLayerNorm(const torch::Tensor& x, const torch::Tensor& weight,
                             const torch::Tensor& bias);

/// Runs one block on the residual stream x [N, n_embd] (float32, or bfloat16 under the bf16
/// policy) and returns the new residual stream. Fills `record` (factors, gates, attention
/// description) when it is not null; `record->layer` and `->hiddenIn` are left to the caller.
torch::Tensor runBlock(const BlockContext& ctx, const PowerLayerWeights& w, const torch::Tensor& x,
                       LayerRecord* record);

}  // namespace gatescope::core::power
