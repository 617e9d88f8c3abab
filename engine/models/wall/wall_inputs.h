// Private to engine/models/wall: what one Wall layer's attention op reads, from the normed residual
// stream: q, k, v after RoPE, the per-channel gates and their prefix sums P, and the optional
// FoX-style scalar gate and its prefix sums c. With packed documents (RunOptions::documentStarts)
// rotary positions and both prefix sums restart at each document, as the official kernel's
// chunk_global_cumsum(..., cu_seqlens) and fla's varlen rotary do.
#pragma once

#include <cstdint>
#include <span>

#include "core/model/model.h"
#include "engine/models/wall/wall_config.h"
#include "engine/models/wall/wall_weights.h"
#include "engine/nn/layers.h"

namespace gatescope::core::wall {

/// All float32, contiguous, on the device of `normed`.
struct WallInputs {
    torch::Tensor q;             ///< [heads, N, head_dim]
    torch::Tensor k, v;          ///< [kv heads, N, head_dim]
    torch::Tensor gates;         ///< g [N, gate heads, gate_dim]; undefined when gate_dim is 0
    torch::Tensor cumsum;        ///< P [gate heads, N, gate_dim]; undefined when gate_dim is 0
    torch::Tensor scalarGates;   ///< g_scalar [N, heads]; undefined without use_scalar_gate
    torch::Tensor scalarCumsum;  ///< c [heads, N]; undefined without use_scalar_gate
};

/// Throws ModelError (Usage, object "documents") unless `starts` is empty or increasing from 0
/// with every start < n.
void checkDocumentStarts(std::span<const int64_t> starts, int64_t n);

/// Computes the inputs of one layer. `documentStarts` as RunOptions::documentStarts, already
/// checked. Prefix sums are accumulated in float64 and rounded once, so long prefixes carry no
/// drift. `options` (may be null): its gate interventions for `layer` change the gates before
/// their prefix sums (the per-channel gates, or the scalar gate when gate_dim is 0). Throws like
/// LibTorch (c10::Error) on device failures.
WallInputs wallInputs(const WallConfig& config, const WallLayerWeights& weights,
                      const torch::Tensor& normed, const Precision& precision,
                      std::span<const int64_t> documentStarts, const RunOptions* options = nullptr,
                      int layer = 0);

}  // namespace gatescope::core::wall
