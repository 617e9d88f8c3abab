// Private to core/train: the pieces the training nets share, written against ParamSet names.
#pragma once

#include <cstdint>
#include <string>

#include "engine/torch_pch.h"
#include "engine/train/param_set.h"

namespace gatescope::core::train {

/// The official init of the fla / FoX codebases: N(0, 0.02^2) for projections and embeddings.
inline constexpr double kInitStd = 0.02;

/// x W^T (+ b) with W = params[prefix + ".weight"] and b = params[prefix + ".bias"] if present.
torch::Tensor linear(const torch::Tensor& x, const ParamSet& params, const std::string& prefix);

/// Adds a SwiGLU MLP's weights under `prefix` ("...mlp."): gate_proj [2I, d] when `fused` (the
/// FoX layout), else gate_proj and up_proj [I, d]; down_proj [d, I].
void addSwiGlu(ParamSet& params, const std::string& prefix, int64_t d, int64_t inter, bool fused);
/// down(silu(gate x) * up x) with the weights addSwiGlu made.
torch::Tensor swiGlu(const torch::Tensor& x, const ParamSet& params, const std::string& prefix,
                     bool fused);

/// The MLP sublayer of the LLaMA-style decoders (FoX, fla): `layerPrefix` + "mlp_norm.weight"
/// (ones) and a SwiGLU under `layerPrefix` + "mlp.".
void addMlpSublayer(ParamSet& params, const std::string& layerPrefix, int64_t d, int64_t inter,
                    bool fused);
/// x + SwiGLU(RMSNorm(x)) with the weights addMlpSublayer made.
torch::Tensor mlpSublayer(const torch::Tensor& x, const ParamSet& params,
                          const std::string& layerPrefix, double eps, bool fused);
/// "model.norm.weight" (ones) and "lm_head.weight" (untied) of those decoders.
void addOutputHead(ParamSet& params, int64_t d, int64_t vocab);
/// lm_head(RMSNorm(x)): the logits.
torch::Tensor outputHead(const torch::Tensor& x, const ParamSet& params, double eps);

/// Forget-gate biases spread over heads, logit(0.7) .. logit(0.998): heads start from local to
/// long-range so that training can specialise them (the official code starts them all alike).
torch::Tensor spreadGateBias(int64_t heads);

}  // namespace gatescope::core::train
