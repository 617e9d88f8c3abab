// Private to engine/models/wall: the Wall Attention token mixer. Per-channel gates
// g = softclamp(logsigmoid(g_proj(x))) <= 0 on the first gate_dim channels of each head (one gate
// vector per KV head when tied), P = cumsum_t g, the optional scalar gate c = cumsum_t
// logsigmoid(f_proj(x)) and sink logit, and softmax attention with the gated score
//   s[i,j] = sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n]) / sqrt(head_dim) + c[i] - c[j]
// on RoPE-rotated q and k over the allowed keys (window, packed documents), run by the anchored
// blockwise kernel of kernels/cpu/wall_forward.h, or kernels/cuda's when it has every option.
#pragma once

#include <span>

#include "core/model/model.h"
#include "core/model/probe.h"
#include "engine/models/wall/wall_config.h"
#include "engine/models/wall/wall_weights.h"
#include "engine/nn/layers.h"

namespace gatescope::core::wall {

/// Runs the layer on `normed` [N, d] (activation dtype) and returns its residual contribution
/// [N, d] float32. `documentStarts` as RunOptions::documentStarts (ModelError Usage when
/// malformed). When `record` is non-null it receives ScoreKind::Wall, window, logRetention g
/// [H, N, gate_dim] (the scalar gate [H, N, 1] when gate_dim is 0), the factors q [H, N, hd],
/// k, v [Hkv, N, hd], lse [H, N] (natural log, sink included), log_decay_cumsum P [gate heads,
/// N, gate_dim] (per KV head when gates are tied) and log_scalar_decay_cumsum c [H, N], and the
/// extras gated_channels, scalar_gate, sink_bias and document_starts
/// (docs/wall-checkpoint-format.md). `options` (may be null) carries interventions for `layer`
/// (engine/nn/interventions.h).
torch::Tensor wallAttention(const WallConfig& config, const WallLayerWeights& weights,
                            const torch::Tensor& normed, const Precision& precision, int threads,
                            std::span<const int64_t> documentStarts, LayerRecord* record,
                            const RunOptions* options = nullptr, int layer = 0);

}  // namespace gatescope::core::wall
