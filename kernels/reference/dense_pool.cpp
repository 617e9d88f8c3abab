#include "kernels/reference/dense_pool.h"

#include <algorithm>
#include <limits>

namespace gatescope::kernels {

std::vector<double> densePool(const std::vector<double>& dense, int64_t n, int level, Pool pool) {
    const int64_t side = pyramidSide(n, level);
    const int64_t cell = int64_t{1} << level;
    std::vector<double> out(side * side, 0.0);
    for (int64_t r = 0; r < side; ++r) {
        for (int64_t c = 0; c < side; ++c) {
            double sum = 0.0, max = -std::numeric_limits<double>::infinity();
            int64_t count = 0;
            for (int64_t i = r * cell; i < std::min((r + 1) * cell, n); ++i) {
                for (int64_t j = c * cell; j < std::min((c + 1) * cell, n); ++j) {
                    const double x = dense[i * n + j];
                    sum += x;
                    max = std::max(max, x);
                    ++count;
                }
            }
            out[r * side + c] = pool == Pool::Max ? max : sum / static_cast<double>(count);
        }
    }
    return out;
}

}  // namespace gatescope::kernels
