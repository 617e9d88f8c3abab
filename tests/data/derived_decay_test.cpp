// Decay pyramid cells derived from c (data/trace/derived_decay.h) against a float64 reference:
// every cell of every level, max and mean, as the pyramid builders define them (disallowed pairs
// count as 0 in the mean; a cell with no allowed pair has max 0), at lengths that are not powers
// of two, for FoX-like c (no window), GatedFWA-like c (windows narrower and wider than a cell)
// and the Transformer (c = 0: decay 1 on every allowed pair).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "data/trace/derived_decay.h"
#include "data/trace/pyramid_geometry.h"

namespace gatescope::data {
namespace {

/// c = cumsum(log f) in float32, as the models sum it; `scale` sets how fast it decays.
std::vector<float> randomC(int64_t n, double scale, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<float> c(static_cast<size_t>(n));
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        // log sigmoid of a random logit: mostly near 0, sometimes strongly negative.
        const double logit = (u(rng) - 0.3) * 8.0;
        sum += static_cast<float>(scale * -std::log1p(std::exp(-logit)));
        c[static_cast<size_t>(i)] = i == 0 ? 0.0f : sum;
    }
    return c;
}

/// The whole level [S, S] in float64 from the definition: every token pair of every cell.
void reference(const std::vector<float>& c, int64_t window, int level, std::vector<double>& max,
               std::vector<double>& mean) {
    const int64_t n = static_cast<int64_t>(c.size()), side = levelSide(n, level);
    max.assign(static_cast<size_t>(side * side), 0.0);
    mean.assign(static_cast<size_t>(side * side), 0.0);
    std::vector<double> sum(static_cast<size_t>(side * side), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) {
            if (window > 0 && j <= i - window) continue;
            const double d = std::exp(double{c[i]} - double{c[j]});
            const int64_t cell = (i >> level) * side + (j >> level);
            sum[cell] += d;
            max[cell] = std::max(max[cell], d);
        }
    for (int64_t r = 0; r < side; ++r)
        for (int64_t k = 0; k < side; ++k) {
            const int64_t rows = std::min(n, (r + 1) << level) - (r << level);
            const int64_t cols = std::min(n, (k + 1) << level) - (k << level);
            mean[r * side + k] = sum[r * side + k] / (double(rows) * double(cols));
        }
}

void expectLevelsMatch(const std::vector<float>& c, int64_t window) {
    const int64_t n = static_cast<int64_t>(c.size());
    std::vector<double> max, mean;
    std::vector<float> tile(kTileSide * kTileSide);
    for (int level = 0; level == 0 || levelSide(n, level - 1) > 1; ++level) {
        SCOPED_TRACE(::testing::Message()
                     << "n " << n << " window " << window << " level " << level);
        reference(c, window, level, max, mean);
        const int64_t side = levelSide(n, level), tiles = tilesPerSide(n, level);
        for (Pool pool : {Pool::Max, Pool::Mean}) {
            const auto& want = pool == Pool::Max ? max : mean;
            double worst = 0.0;
            for (int64_t tr = 0; tr < tiles; ++tr)
                for (int64_t tc = 0; tc < tiles; ++tc) {
                    deriveDecayTile(c.data(), n, window, level, pool, tr, tc, tile.data());
                    for (int64_t y = 0; y < kTileSide; ++y)
                        for (int64_t x = 0; x < kTileSide; ++x) {
                            const int64_t r = tr * kTileSide + y, k = tc * kTileSide + x;
                            const double got = tile[y * kTileSide + x];
                            const double w = r < side && k < side ? want[r * side + k] : 0.0;
                            // float32 rounding (relative), and underflow below float's range.
                            worst = std::max(worst, std::abs(got - w) / (w + 1e-30));
                            if (w < 1.7e-38) continue;
                            // Below e^-87 (1.6e-38) cells are 0, as the builders' float32 exp.
                            if (w < 1.6e-38) {
                                EXPECT_EQ(got, 0.0) << "cell " << r << ", " << k;
                            }
                            if (w >= 1.7e-38) {
                                EXPECT_GT(got, 0.0) << "cell " << r << ", " << k;
                            }
                        }
                }
            EXPECT_LT(worst, 1e-6) << (pool == Pool::Max ? "max" : "mean");
        }
    }
}

TEST(DerivedDecay, FoxCellsEqualTheFloat64Reference) {
    for (int64_t n : {1, 2, 37, 300, 777})
        expectLevelsMatch(randomC(n, 1.0, 3u), 0);
}

TEST(DerivedDecay, FastDecayStaysFinite) {
    // |c| in the thousands: e^(-c_j) alone would overflow a double; the cells must not.
    expectLevelsMatch(randomC(613, 40.0, 5u), 0);
}

TEST(DerivedDecay, GatedFwaWindowBandEqualsTheFloat64Reference) {
    // Windows narrower than a cell, between cell sizes and wider than the whole text.
    for (int64_t window : {1, 3, 24, 100, 1000})
        expectLevelsMatch(randomC(531, 0.5, 9u), window);
}

TEST(DerivedDecay, TransformerDecayIsOneOnAllowedPairs) {
    const std::vector<float> zeros(389, 0.0f);
    expectLevelsMatch(zeros, 0);
    expectLevelsMatch(zeros, 40);
}

TEST(DerivedDecay, NonIncreasingCheck) {
    EXPECT_TRUE(isNonIncreasing(randomC(100, 1.0, 1u).data(), 100));
    const std::vector<float> up{0.0f, -1.0f, -0.5f};
    EXPECT_FALSE(isNonIncreasing(up.data(), 3));
    const std::vector<float> nan{0.0f, NAN};
    EXPECT_FALSE(isNonIncreasing(nan.data(), 2));
}

}  // namespace
}  // namespace gatescope::data
