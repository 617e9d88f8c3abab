#include "engine/models/gatedfwa/gatedfwa_gate.h"

#include "engine/models/gatedfwa/gatedfwa_config.h"

namespace gatescope::core::gatedfwa {

MemoryGate memoryGate(const GatedFwaLayerWeights& w, const torch::Tensor& x,
                      const Precision& precision) {
    // Autocast runs these in bf16 op by op: round after each step to land on the same values.
    auto round = [&](const torch::Tensor& t) {
        return precision.bf16 ? roundTrip(t, torch::kBFloat16) : t;
    };
    auto logit = w.fgate(x, precision).to(torch::kFloat32);
    auto lambda = round(torch::elu(w.lambda(x, precision).to(torch::kFloat32)) + 1.0);
    auto scaled = round(logit * lambda);
    auto logSigmoid = round(torch::log_sigmoid(scaled));
    // The official code multiplies by the reciprocal rather than dividing; keep its rounding.
    auto reciprocal = round(1.0 / round(lambda + kGateEpsilon));
    auto logGate = round(logSigmoid * reciprocal);
    return {logit.t().contiguous(), lambda.t().contiguous(), logGate.t().contiguous()};
}

}  // namespace gatescope::core::gatedfwa
