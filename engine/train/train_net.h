// Private to core/train: a differentiable, batched twin of one architecture of the model zoo,
// whose parameters carry the tensor names its loader reads. Training runs these nets; the
// checkpoints they save are then opened by the inference models of core/models, and
// tests/engine/train_net_test.cpp checks that both compute the same logits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/torch_pch.h"
#include "engine/train/net_shape.h"
#include "engine/train/param_set.h"

namespace gatescope::core::train {

class TrainNet {
public:
    explicit TrainNet(uint64_t seed) : m_params(seed) {}
    virtual ~TrainNet() = default;
    /// ids [B, N] int64 -> logits [B, N, V] float32, differentiable in params(). N is the
    /// training length (dense N x N attention inside is bounded by it).
    virtual torch::Tensor logits(const torch::Tensor& ids) = 0;
    /// The logits the inference model reports for these training logits (the loss is always
    /// taken on the training logits): identity, except where the official inference path
    /// transforms them (GatedFWA's softcap).
    virtual torch::Tensor reportedLogits(const torch::Tensor& logits) const { return logits; }
    /// The config.json that the model zoo's loader parses for this net.
    const nlohmann::json& config() const { return m_config; }
    ParamSet& params() { return m_params; }
    const ParamSet& params() const { return m_params; }

protected:
    nlohmann::json m_config;
    ParamSet m_params;
};

/// Builds a freshly initialised net of `arch` ("fox", "transformer", "wall", "gated_fwa",
/// "power", "gsa"). Throws ModelError (Usage) for an unknown arch or a shape the architecture
/// refuses (its config parser's message).
std::unique_ptr<TrainNet> makeTrainNet(const std::string& arch, const NetShape& shape);

/// The arch names makeTrainNet accepts.
std::vector<std::string> trainableArchs();

/// Dense causal softmax attention for training lengths. q [B, H, N, D], k/v [B, Hkv, N, D*]
/// (query head h reads kv head h / (H / Hkv)); `bias` [B or 1, H or 1, N, N] added to the scaled
/// scores, or undefined; `window` > 0 keeps keys j with i - j < window. Returns [B, H, N, Dv].
torch::Tensor denseCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& bias, double scale,
                                   int64_t window = 0);

/// Pairwise c_i - c_j of a cumulative sum c [B, H, N]: [B, H, N, N] (the additive decay bias).
torch::Tensor pairwiseDecay(const torch::Tensor& cumsum);

}  // namespace gatescope::core::train
