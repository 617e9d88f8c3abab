#include "data/trace/derived_decay.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/trace/pyramid_geometry.h"

namespace gatescope::data {
namespace {

/// The token ranges of one cell: queries [rb, re), keys [cb, ce).
struct Cell {
    int64_t rb, re, cb, ce;
};

int64_t firstKey(int64_t i, int64_t window) {
    return window > 0 && i - window + 1 > 0 ? i - window + 1 : 0;
}

double ex(float a, float b) {
    return std::exp(double{a} - double{b});
}

/// The pyramid builders exponentiate in float32 and give exactly 0 below e^-87
/// (kernels/cpu/fast_math.h); cells below that are 0 here too, so that "no decay left" reads the
/// same from stored and derived pyramids.
float cellValue(double value) {
    constexpr double kUnderflow = 1.6458114310822737e-38;  // e^-87
    return value < kUnderflow ? 0.0f : static_cast<float>(value);
}

float cellMax(const float* c, const Cell& k, int64_t window) {
    const int64_t j = std::min(k.rb, k.ce - 1);  // the allowed pair nearest the diagonal
    if (j < std::max(k.cb, firstKey(k.rb, window))) return 0.0f;
    return cellValue(ex(c[k.rb], c[j]));
}

/// Sum over the allowed pairs of a diagonal cell (cb == rb).
double diagonalSum(const float* c, const Cell& k, int64_t window) {
    double total = 0.0;
    if (window <= 0 || window >= k.re - k.rb) {  // the window cuts nothing inside the cell
        double row = 0.0;                        // sum_{j = rb..i} e^(c_i - c_j), by recurrence
        for (int64_t i = k.rb; i < k.re; ++i) {
            row = 1.0 + (i > k.rb ? ex(c[i], c[i - 1]) * row : 0.0);
            total += row;
        }
        return total;
    }
    for (int64_t i = k.rb; i < k.re; ++i)
        for (int64_t j = std::max(k.cb, firstKey(i, window)); j <= i; ++j)
            total += ex(c[i], c[j]);
    return total;
}

/// Sum over the allowed pairs of a cell below the diagonal (ce <= rb) that the window's edge
/// cuts: row i covers keys [max(cb, i - window + 1), ce).
double bandSum(const float* c, const Cell& k, int64_t window, std::vector<double>& suffix) {
    const int64_t last = k.ce - 1;
    suffix.assign(static_cast<size_t>(k.ce - k.cb + 1), 0.0);  // suffix[j - cb] = sum_{j..last}
    for (int64_t j = last; j >= k.cb; --j)
        suffix[j - k.cb] = suffix[j - k.cb + 1] + ex(c[last], c[j]);
    double total = 0.0;
    for (int64_t i = k.rb; i < k.re; ++i) {
        const int64_t lo = std::max(k.cb, firstKey(i, window));
        if (lo > last) break;  // later rows start even further right
        total += ex(c[i], c[last]) * suffix[lo - k.cb];
    }
    return total;
}

}  // namespace

bool isNonIncreasing(const float* c, int64_t n) {
    for (int64_t i = 1; i < n; ++i)
        if (!(c[i] <= c[i - 1])) return false;  // NaN too
    return true;
}

void deriveDecayTile(const float* c, int64_t n, int64_t window, int level, Pool pool,
                     int64_t tileRow, int64_t tileCol, float* out) {
    std::fill(out, out + kTileSide * kTileSide, 0.0f);
    if (tileCol > tileRow) return;
    const int64_t side = levelSide(n, level), size = int64_t{1} << level;
    const int64_t r0 = tileRow * kTileSide, c0 = tileCol * kTileSide;
    const int64_t rows = std::min(kTileSide, side - r0), cols = std::min(kTileSide, side - c0);
    if (rows <= 0 || cols <= 0) return;
    auto cell = [&](int64_t r, int64_t col) {
        return Cell{r * size, std::min(n, (r + 1) * size), col * size,
                    std::min(n, (col + 1) * size)};
    };
    std::vector<double> rowFactor, colFactor, suffix;
    if (pool == Pool::Mean) {
        // Separable parts: sum_i e^(c_i - c_rb) per cell row, sum_j e^(c_last - c_j) per column.
        rowFactor.resize(static_cast<size_t>(rows));
        colFactor.resize(static_cast<size_t>(cols));
        for (int64_t y = 0; y < rows; ++y) {
            const Cell k = cell(r0 + y, 0);
            double sum = 0.0;
            for (int64_t i = k.rb; i < k.re; ++i)
                sum += ex(c[i], c[k.rb]);
            rowFactor[y] = sum;
        }
        for (int64_t x = 0; x < cols; ++x) {
            const Cell k = cell(0, c0 + x);
            double sum = 0.0;
            for (int64_t j = k.cb; j < k.ce; ++j)
                sum += ex(c[k.ce - 1], c[j]);
            colFactor[x] = sum;
        }
    }
    for (int64_t y = 0; y < rows; ++y) {
        const int64_t r = r0 + y;
        for (int64_t x = 0; x < cols; ++x) {
            const int64_t col = c0 + x;
            if (col > r) break;
            const Cell k = cell(r, col);
            float& value = out[y * kTileSide + x];
            if (pool == Pool::Max) {
                value = cellMax(c, k, window);
                continue;
            }
            double sum = 0.0;
            if (col == r)
                sum = diagonalSum(c, k, window);
            else if (firstKey(k.rb, window) > k.ce - 1)
                sum = 0.0;  // the whole cell is left of the window
            else if (firstKey(k.re - 1, window) <= k.cb)
                sum = ex(c[k.rb], c[k.ce - 1]) * rowFactor[y] * colFactor[x];
            else
                sum = bandSum(c, k, window, suffix);
            value = cellValue(sum / (double(k.re - k.rb) * double(k.ce - k.cb)));
        }
    }
}

}  // namespace gatescope::data
