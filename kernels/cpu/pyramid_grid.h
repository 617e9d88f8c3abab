// Private to kernels/cpu/pyramid_builder.cpp: one pyramid level held as per-cell sums and
// maxima, the reductions that fill it, and its delivery as tiles.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/pyramid_builder.h"

namespace gatescope::kernels::detail {

/// Level `level` of an n-token map: S x S cells of (sum, max). Not thread-safe; concurrent
/// writers must touch disjoint cell rows.
class PyramidGrid {
public:
    PyramidGrid(int64_t n, int level);

    int64_t side() const { return m_side; }
    int level() const { return m_level; }

    /// Folds in one full-resolution tile (kPyramidTile^2, row-major) whose top-left token is
    /// (row0, col0); only tokens inside [0, n)^2 count. `colSum` and `colMax` are kPyramidTile
    /// scratch entries.
    void addTile(int64_t row0, int64_t col0, const float* tile, double* colSum, float* colMax);

    /// Puts 0 into the max of every cell that holds a disallowed token (j > i, or j < i - w + 1
    /// when window w > 0): those tokens are 0 but their tiles may never have been computed.
    void foldDisallowed(int64_t window);

    /// The next coarser level: sums add up, maxima take the max of the (up to four) children.
    PyramidGrid coarser() const;

    /// Writes the kPyramidTile^2 tile (tileRow, tileCol) of the max or mean grid into out.
    void fillTile(Pool pool, int64_t tileRow, int64_t tileCol, float* out) const;

private:
    /// Tokens covered by cell row (or column) r: min((r + 1) 2^level, n) - r 2^level.
    int64_t extent(int64_t r) const;

    int64_t m_n;
    int m_level;
    int64_t m_side;
    std::vector<double> m_sum;
    std::vector<float> m_max;
};

}  // namespace gatescope::kernels::detail
