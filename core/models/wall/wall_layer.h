// Private to core/models/wall: the Wall Attention token mixer. Per-channel gates
// g = softclamp(logsigmoid(g_proj(x))) <= 0 on the first gate_dim channels of each head (one gate
// vector per KV head when tied), P = cumsum_t g, and softmax attention with the gated score
//   s[i,j] = sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n]) / sqrt(head_dim)
// on RoPE-rotated q and k, run by the anchored blockwise kernel of kernels/cpu/wall_forward.h.
#pragma once

#include "core/model/probe.h"
#include "core/models/wall/wall_config.h"
#include "core/models/wall/wall_weights.h"
#include "core/nn/layers.h"

namespace gatescope::core::wall {

/// Runs the layer on `normed` [N, d] (activation dtype) and returns its residual contribution
/// [N, d] float32. When `record` is non-null it receives scoreKind "wall", logRetention g
/// [H, N, gate_dim] and the factors q [H, N, hd], k, v [Hkv, N, hd], lse [H, N] (natural log) and
/// log_decay_cumsum P [gate heads, N, gate_dim] (per KV head when gates are tied).
torch::Tensor wallAttention(const WallConfig& config, const WallLayerWeights& weights,
                            const torch::Tensor& normed, const Precision& precision, int threads,
                            LayerRecord* record);

}  // namespace gatescope::core::wall
