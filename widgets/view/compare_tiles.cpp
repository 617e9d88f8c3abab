#include "widgets/view/compare_tiles.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

const char* toString(DiffMode mode) {
    return mode == DiffMode::LogRatio ? "log pA - log pB" : "A - B";
}

TilePtr differenceTile(const TileData& a, const TileData& b, DiffMode mode, const TileKey& key) {
    auto out = std::make_shared<TileData>();
    out->key = key;
    out->rows = std::min(a.rows, b.rows);
    out->cols = std::min(a.cols, b.cols);
    out->values.assign(static_cast<size_t>(kTile * kTile), 0.f);
    const double logFloor = std::log(kLogRatioFloor);
    for (int64_t r = 0; r < out->rows; ++r)
        for (int64_t c = 0; c < out->cols; ++c) {
            const double x = a.at(r, c), y = b.at(r, c);
            double v = x - y;
            if (mode == DiffMode::LogRatio)
                v = (x > kLogRatioFloor ? std::log(x) : logFloor) -
                    (y > kLogRatioFloor ? std::log(y) : logFloor);
            out->values[static_cast<size_t>(r * kTile + c)] = static_cast<float>(v);
        }
    computeTileStats(*out);
    return out;
}

RowDivergence rowDivergence(const float* p, const float* q, int64_t n) {
    constexpr double kFloor = 1e-12;
    RowDivergence d;
    for (int64_t j = 0; j < n; ++j) {
        const double x = std::max<double>(p[j], 0.0), y = std::max<double>(q[j], 0.0);
        const double m = 0.5 * (x + y);
        if (x > 0) d.klAB += x * std::log(x / std::max(y, kFloor));
        if (x > 0) d.js += 0.5 * x * std::log(x / m);
        if (y > 0) d.js += 0.5 * y * std::log(y / m);
    }
    return d;
}

}  // namespace gatescope::widgets
