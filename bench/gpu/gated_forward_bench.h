// The forwards of GatedFWA (windowed FoX decay), gated power attention and Wall Attention, timed
// at cuda_attention_bench's forward shapes; one JSON line per measurement on stdout
// (kernel gatescope_gatedfwa, gatescope_power, gatescope_wall), for compare_sdpa.py --gated.
#pragma once

#include <cstdint>
#include <random>

namespace gatescope::benchgpu {

/// Times the three forwards at d = 64 and 128 and N = 1k .. maxN (doubling), `reps` timed runs
/// each (median). Exits the process on a CUDA error, like the rest of the bench.
void benchGatedForwards(int64_t maxN, int reps, std::mt19937& rng);

}  // namespace gatescope::benchgpu
