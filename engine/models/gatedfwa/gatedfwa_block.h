// Private to engine/models/gatedfwa: one nanochat GPTGated Block (gated sliding-window attention
// and the ReLU^2 MLP, parameter-free RMSNorms), instrumented.
#pragma once

#include "core/model/model.h"
#include "core/model/probe.h"
#include "engine/models/gatedfwa/gatedfwa_weights.h"

namespace gatescope::core::gatedfwa {

/// What every layer of one forward shares. References must outlive the block call.
struct BlockContext {
    const GatedFwaConfig& config;
    const Precision& precision;
    const torch::Tensor& cos;  ///< [N, D/2] rounded to bf16, as nanochat stores them
    const torch::Tensor& sin;  ///< [N, D/2], sign flipped for applyRotaryHalf (see the .cpp)
    int threads = 0;
    const RunOptions* options =
        nullptr;    ///< interventions (engine/nn/interventions.h); may be null
    int layer = 0;  ///< the block's layer, for interventions
};

/// x + attn(norm(x)), then + mlp(norm(.)), on the float32 residual stream x [N, d]. Fills `record`
/// (factors, log gate, attention header; its layer is the caller's) when it is not null; `probe`
/// (not null then) decides which factors are kept and whether they stay on the GPU
/// (recordFactors).
torch::Tensor gatedFwaBlock(const GatedFwaLayerWeights& weights, const torch::Tensor& x,
                            const BlockContext& context, LayerRecord* record, const Probe* probe);

/// The parameter-free RMSNorm: F.rms_norm with eps=None, i.e. float32 epsilon (also for bf16
/// inputs, whose op-math type is float32), computed in float32, output in `outDtype`.
torch::Tensor parameterFreeNorm(const torch::Tensor& x, torch::ScalarType outDtype);

}  // namespace gatescope::core::gatedfwa
