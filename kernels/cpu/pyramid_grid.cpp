#include "kernels/cpu/pyramid_grid.h"

#include <algorithm>
#include <limits>

namespace gatescope::kernels::detail {

PyramidGrid::PyramidGrid(int64_t n, int level)
    : m_n(n),
      m_level(level),
      m_side(pyramidSide(n, level)),
      m_sum(m_side * m_side, 0.0),
      m_max(m_side * m_side, -std::numeric_limits<float>::infinity()) {}

int64_t PyramidGrid::extent(int64_t r) const {
    const int64_t begin = r << m_level;
    return std::min((r + 1) << m_level, m_n) - begin;
}

void PyramidGrid::addTile(int64_t row0, int64_t col0, const float* tile, double* colSum,
                          float* colMax) {
    const int64_t rowEnd = std::min(row0 + kPyramidTile, m_n);
    const int64_t colEnd = std::min(col0 + kPyramidTile, m_n);
    const int64_t width = colEnd - col0;
    for (int64_t i = row0; i < rowEnd;) {
        // Rows of the tile that fall in one cell row: reduce them column-wise first (contiguous,
        // vectorizable), then each cell's columns.
        const int64_t gr = i >> m_level;
        const int64_t stop = std::min(rowEnd, (gr + 1) << m_level);
        std::fill(colSum, colSum + width, 0.0);
        std::fill(colMax, colMax + width, -std::numeric_limits<float>::infinity());
        for (; i < stop; ++i) {
            const float* row = tile + (i - row0) * kPyramidTile;
            for (int64_t j = 0; j < width; ++j) {
                colSum[j] += row[j];
                colMax[j] = row[j] > colMax[j] ? row[j] : colMax[j];
            }
        }
        for (int64_t j = col0; j < colEnd;) {
            const int64_t gc = j >> m_level;
            const int64_t segEnd = std::min(colEnd, (gc + 1) << m_level);
            double sum = 0.0;
            float max = m_max[gr * m_side + gc];
            for (; j < segEnd; ++j) {
                sum += colSum[j - col0];
                max = std::max(max, colMax[j - col0]);
            }
            m_sum[gr * m_side + gc] += sum;
            m_max[gr * m_side + gc] = max;
        }
    }
}

void PyramidGrid::foldDisallowed(int64_t window) {
    for (int64_t r = 0; r < m_side; ++r) {
        const int64_t rowBegin = r << m_level, rowEnd = rowBegin + extent(r);
        for (int64_t c = 0; c < m_side; ++c) {
            const int64_t colBegin = c << m_level, colEnd = colBegin + extent(c);
            const bool aboveDiagonal = colEnd - 1 > rowBegin;
            const bool outsideWindow = window > 0 && colBegin < rowEnd - window;
            if (aboveDiagonal || outsideWindow)
                m_max[r * m_side + c] = std::max(m_max[r * m_side + c], 0.0f);
        }
    }
}

PyramidGrid PyramidGrid::coarser() const {
    PyramidGrid up(m_n, m_level + 1);
    for (int64_t r = 0; r < m_side; ++r) {
        for (int64_t c = 0; c < m_side; ++c) {
            const int64_t parent = (r / 2) * up.m_side + c / 2;
            up.m_sum[parent] += m_sum[r * m_side + c];
            up.m_max[parent] = std::max(up.m_max[parent], m_max[r * m_side + c]);
        }
    }
    return up;
}

void PyramidGrid::fillTile(Pool pool, int64_t tileRow, int64_t tileCol, float* out) const {
    std::fill(out, out + kPyramidTile * kPyramidTile, 0.0f);
    const int64_t r0 = tileRow * kPyramidTile, c0 = tileCol * kPyramidTile;
    const int64_t rows = std::min(kPyramidTile, m_side - r0);
    const int64_t cols = std::min(kPyramidTile, m_side - c0);
    for (int64_t y = 0; y < rows; ++y) {
        const int64_t r = r0 + y;
        for (int64_t x = 0; x < cols; ++x) {
            const int64_t c = c0 + x;
            const int64_t cell = r * m_side + c;
            out[y * kPyramidTile + x] =
                pool == Pool::Max
                    ? m_max[cell]
                    : static_cast<float>(m_sum[cell] / (static_cast<double>(extent(r)) *
                                                        static_cast<double>(extent(c))));
        }
    }
}

}  // namespace gatescope::kernels::detail
