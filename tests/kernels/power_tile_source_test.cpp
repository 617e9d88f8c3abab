// PowerTileSource tiles against the dense float64 reference, at offsets that cut through blocks.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/power_tile_source.h"
#include "power_reference.h"

namespace gatescope {
namespace {

struct Prepared {
    test::PowerCase c;
    test::PowerDense ref;
    std::vector<float> out, logZ;
    kernels::PowerHead head;

    explicit Prepared(bool gated) {
        c = test::randomPowerCase(301, 12, 9, 2, gated, 31, 1.3, 0.5);
        ref = test::densePowerAttention(c);
        out.resize(c.n * c.dv);
        logZ.resize(c.n);
        head.n = c.n;
        head.dk = c.dk;
        head.dv = c.dv;
        head.q = c.q.data();
        head.k = c.k.data();
        head.v = c.v.data();
        head.logDecayCumsum = c.g.empty() ? nullptr : c.g.data();
        head.scale = static_cast<float>(c.scale);
        kernels::powerAttentionForward(head, out.data(), logZ.data());
        head.logNormalizer = logZ.data();
    }
};

struct PowerTile {
    int64_t row0, rows, col0, cols;
};

class PowerTiles : public ::testing::TestWithParam<PowerTile> {};

TEST_P(PowerTiles, AttentionDecayAndLogitMatchDense) {
    const PowerTile t = GetParam();
    for (bool gated : {true, false}) {
        SCOPED_TRACE(gated ? "gated" : "ungated");
        Prepared p(gated);
        kernels::PowerTileSource source(p.head);
        EXPECT_EQ(source.size(), p.c.n);
        std::vector<float> attention(t.rows * t.cols), decay(t.rows * t.cols),
            logit(t.rows * t.cols);
        source.compute(kernels::MapKind::Attention, t.row0, t.rows, t.col0, t.cols,
                       attention.data());
        source.compute(kernels::MapKind::Decay, t.row0, t.rows, t.col0, t.cols, decay.data());
        source.compute(kernels::MapKind::Logit, t.row0, t.rows, t.col0, t.cols, logit.data());
        int64_t checked = 0;
        for (int64_t r = 0; r < t.rows; ++r) {
            for (int64_t cc = 0; cc < t.cols; ++cc) {
                const int64_t i = t.row0 + r, j = t.col0 + cc;
                const size_t at = r * t.cols + cc;
                const bool allowed = i >= 0 && i < p.c.n && j >= 0 && j <= i;
                if (!allowed) {
                    ASSERT_EQ(attention[at], 0.0f);
                    ASSERT_EQ(decay[at], 0.0f);
                    ASSERT_EQ(logit[at], -std::numeric_limits<float>::infinity());
                    continue;
                }
                ++checked;
                // Probabilities are <= 1: relative 2e-5, absolute 1e-7 for float underflow.
                const double want = p.ref.probs[i * p.c.n + j];
                ASSERT_NEAR(attention[at], want, 2e-5 * want + 1e-7) << i << ", " << j;
                const double wantDecay = std::exp(p.c.cumsum(i) - p.c.cumsum(j));
                ASSERT_NEAR(decay[at], wantDecay, 1e-5 * wantDecay + 1e-30);
                // Logit - logNormalizer is the log of the probability (where it is not tiny: a
                // near-zero q.k has few correct digits, and a weight to match).
                if (want > 1e-6) {
                    ASSERT_NEAR(logit[at] - p.ref.logNormalizer[i], std::log(want), 1e-4);
                }
            }
        }
        const bool anyAllowed = t.row0 + t.rows - 1 >= std::max<int64_t>(t.col0, 0);
        EXPECT_EQ(checked > 0, anyAllowed);
    }
}

INSTANTIATE_TEST_SUITE_P(Offsets, PowerTiles,
                         ::testing::Values(PowerTile{0, 301, 0, 301}, PowerTile{-5, 40, -9, 300},
                                           PowerTile{77, 130, 13, 270}, PowerTile{250, 80, 260, 60},
                                           PowerTile{100, 10, 200, 50},
                                           PowerTile{290, 30, -3, 17}));

TEST(PowerTiles, RowsSumToOne) {
    Prepared p(true);
    kernels::PowerTileSource source(p.head);
    std::vector<float> all(p.c.n * p.c.n);
    source.compute(kernels::MapKind::Attention, 0, p.c.n, 0, p.c.n, all.data());
    for (int64_t i = 0; i < p.c.n; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < p.c.n; ++j)
            sum += all[i * p.c.n + j];
        ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    }
}

TEST(PowerTiles, MissingFactorsGiveNan) {
    Prepared p(true);
    kernels::PowerHead head = p.head;
    head.logNormalizer = nullptr;
    kernels::PowerTileSource source(head);
    EXPECT_FALSE(source.hasMap(kernels::MapKind::Attention));
    EXPECT_TRUE(source.hasMap(kernels::MapKind::Logit));
    EXPECT_TRUE(source.hasMap(kernels::MapKind::Decay));
    std::vector<float> tile(8 * 8);
    source.compute(kernels::MapKind::Attention, 0, 8, 0, 8, tile.data());
    for (float x : tile)
        EXPECT_TRUE(std::isnan(x));
}

}  // namespace
}  // namespace gatescope
