// Measures this machine's own float32 matrix-multiply throughput through LibTorch, the baseline
// that benchmarks report their compute fraction against.
#pragma once

namespace gatescope::core {

/// GFLOP/s of repeated [m, k] x [k, n] float32 GEMMs (best of `repeats` timed runs after a
/// warm-up), using `threads` intra-op threads (0: LibTorch's default). Takes about a second.
double measureMatmulGflops(int m, int k, int n, int threads = 0, int repeats = 5);

}  // namespace gatescope::core
