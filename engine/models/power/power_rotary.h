// Private to engine/models/power: train/model.py's own rotary embedding. Unlike RoPE with a fixed
// base, its frequencies depend on the current sequence length T: angle(pos, i) =
// pos * 2 pi / T^(2i/d), and it rotates interleaved pairs (x[2i], x[2i+1]) ("rotate_every_two").
// Pair 0 turns by 2 pi pos (the identity up to float32 rounding, which is reproduced).
#pragma once

#include <cstdint>
#include <utility>

#include "engine/torch_pch.h"

namespace gatescope::core::power {

/// sin and cos [T, dim/2] float32, computed with the same float32 operations as
/// get_sinusoidal_embeddings (so that they round the same way).
std::pair<torch::Tensor, torch::Tensor> sequenceRotaryTables(int64_t t, int64_t dim);

/// x [T, H, D] (any float dtype): out[2i] = x[2i] cos - x[2i+1] sin, out[2i+1] = x[2i+1] cos +
/// x[2i] sin, computed in float32 and returned in x's dtype.
torch::Tensor applyRotaryInterleaved(const torch::Tensor& x, const torch::Tensor& sin,
                                     const torch::Tensor& cos);

}  // namespace gatescope::core::power
