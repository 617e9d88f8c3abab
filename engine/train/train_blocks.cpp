#include "engine/train/train_blocks.h"

#include <cmath>

#include "engine/nn/layers.h"

namespace gatescope::core::train {

torch::Tensor linear(const torch::Tensor& x, const ParamSet& params, const std::string& prefix) {
    const std::string bias = prefix + ".bias";
    return torch::linear(x, params.get(prefix + ".weight"),
                         params.has(bias) ? params.get(bias) : torch::Tensor());
}

void addSwiGlu(ParamSet& params, const std::string& prefix, int64_t d, int64_t inter, bool fused) {
    if (fused) {
        params.normal(prefix + "gate_proj.weight", {2 * inter, d}, kInitStd);
    } else {
        params.normal(prefix + "gate_proj.weight", {inter, d}, kInitStd);
        params.normal(prefix + "up_proj.weight", {inter, d}, kInitStd);
    }
    params.normal(prefix + "down_proj.weight", {d, inter}, kInitStd);
}

torch::Tensor swiGlu(const torch::Tensor& x, const ParamSet& params, const std::string& prefix,
                     bool fused) {
    torch::Tensor gate, up;
    if (fused) {
        auto parts = linear(x, params, prefix + "gate_proj").chunk(2, -1);
        gate = parts[0];
        up = parts[1];
    } else {
        gate = linear(x, params, prefix + "gate_proj");
        up = linear(x, params, prefix + "up_proj");
    }
    return linear(torch::silu(gate) * up, params, prefix + "down_proj");
}

void addMlpSublayer(ParamSet& params, const std::string& layerPrefix, int64_t d, int64_t inter,
                    bool fused) {
    params.constant(layerPrefix + "mlp_norm.weight", {d}, 1.0);
    addSwiGlu(params, layerPrefix + "mlp.", d, inter, fused);
}

torch::Tensor mlpSublayer(const torch::Tensor& x, const ParamSet& params,
                          const std::string& layerPrefix, double eps, bool fused) {
    auto normed = rmsNorm(x, params.get(layerPrefix + "mlp_norm.weight"), eps, torch::kFloat32);
    return x + swiGlu(normed, params, layerPrefix + "mlp.", fused);
}

void addOutputHead(ParamSet& params, int64_t d, int64_t vocab) {
    params.constant("model.norm.weight", {d}, 1.0);
    params.normal("lm_head.weight", {vocab, d}, kInitStd);
}

torch::Tensor outputHead(const torch::Tensor& x, const ParamSet& params, double eps) {
    return linear(rmsNorm(x, params.get("model.norm.weight"), eps, torch::kFloat32), params,
                  "lm_head");
}

torch::Tensor spreadGateBias(int64_t heads) {
    auto p = torch::linspace(0.7, 0.998, heads, torch::kFloat64);
    return torch::log(p / (1.0 - p)).to(torch::kFloat32);
}

}  // namespace gatescope::core::train
