// Brute-force pyramid level of a dense N x N map, straight from the definition. Materializes
// N^2 values: for tests of the pyramid builders (CPU and CUDA) with small N only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/pyramid_builder.h"

namespace gatescope::kernels {

/// Level `level` of `dense` (row-major n x n, disallowed cells already 0), pooled with `pool`
/// over the in-bounds tokens of each cell: an S x S row-major grid, S = pyramidSide(n, level).
std::vector<double> densePool(const std::vector<double>& dense, int64_t n, int level, Pool pool);

}  // namespace gatescope::kernels
