// Blockwise Wall Attention forward and tile recompute against the dense float64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "gsa_reference.h"
#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/wall_forward.h"
#include "kernels/cpu/wall_tile_source.h"
#include "wall_reference.h"

namespace gatescope {
namespace {

using test::maxRelativeError;

struct WallShape {
    int64_t n;
    int dk, dv, dg;
    double gateBias, gMax;
};

class WallForward : public ::testing::TestWithParam<WallShape> {};

TEST_P(WallForward, MatchesDenseFloat64) {
    const WallShape s = GetParam();
    const auto c = test::randomWallCase(s.n, s.dk, s.dv, s.dg, 4242 + s.n, s.gateBias, s.gMax);
    const auto ref = test::denseWall(c);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    EXPECT_LT(maxRelativeError(out, ref.out), 2e-5);
    EXPECT_LT(maxRelativeError(lse, ref.lse), 2e-5);
}

// Sizes straddle the 64-token anchor blocks; dg < dk exercises subdim gating, dg = 0 plain
// attention; bias -2 without the clamp gives gates near -2 per step (P falls by ~130 per block).
INSTANTIATE_TEST_SUITE_P(
    Sizes, WallForward,
    ::testing::Values(WallShape{1, 8, 4, 8, 1.0, 0.86}, WallShape{63, 16, 8, 16, 1.0, 0.86},
                      WallShape{65, 16, 12, 8, 0.0, 0.86}, WallShape{200, 32, 16, 32, -2.0, 0.0},
                      WallShape{333, 48, 24, 24, 2.0, 0.86}, WallShape{129, 16, 16, 0, 1.0, 0.86}));

TEST(WallForward, OpenGatesAreVanillaAttention) {
    auto c = test::randomWallCase(150, 16, 8, 16, 7);
    std::fill(c.P.begin(), c.P.end(), 0.0f);  // g = 0: retention 1 everywhere
    std::vector<float> wallOut(c.n * c.dv), wallLse(c.n), out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), wallOut.data(), wallLse.data());
    kernels::AdditiveDecayHead plain;
    plain.n = c.n;
    plain.dk = c.dk;
    plain.dv = c.dv;
    plain.q = c.q.data();
    plain.k = c.k.data();
    plain.v = c.v.data();
    plain.scale = static_cast<float>(c.scale);
    kernels::attentionForward(plain, out.data(), lse.data());
    EXPECT_LT(maxRelativeError(wallOut, out), 1e-5);
    EXPECT_LT(maxRelativeError(wallLse, lse), 1e-5);
}

TEST(WallForward, LongSequenceWithStrongGatesStaysFinite) {
    // 5000 tokens at the clamp floor (~ -0.86 per step): P reaches about -4300, far past
    // where exp(+-P) overflows float; the anchored form must never form such a factor.
    const auto c = test::randomWallCase(5000, 16, 8, 16, 99, -6.0, 0.86);
    ASSERT_LT(c.P.back(), -3000.0f);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    for (float x : out)
        ASSERT_TRUE(std::isfinite(x));
    for (float x : lse)
        ASSERT_TRUE(std::isfinite(x));
    // Strong gates forget almost everything past a few tokens: row i's output is dominated by the
    // last keys, checked against a dense row-by-row float64 evaluation of the last row.
    const int64_t i = c.n - 1;
    std::vector<double> logits(i + 1);
    double rowMax = -INFINITY;
    for (int64_t j = 0; j <= i; ++j) {
        double s = 0;
        for (int ch = 0; ch < c.dk; ++ch)
            s += double(c.q[i * c.dk + ch]) * c.k[j * c.dk + ch] *
                 std::exp(double(c.P[i * c.dg + ch]) - double(c.P[j * c.dg + ch]));
        logits[j] = c.scale * s;
        rowMax = std::max(rowMax, logits[j]);
    }
    double sum = 0;
    for (double l : logits)
        sum += std::exp(l - rowMax);
    EXPECT_NEAR(lse[i], rowMax + std::log(sum), 1e-4);
}

TEST(WallForward, HeadsMatchSingleHead) {
    const auto a = test::randomWallCase(190, 16, 8, 16, 1),
               b = test::randomWallCase(77, 16, 8, 4, 2);
    const kernels::WallHead heads[] = {a.view(), b.view()};
    std::vector<float> oa(a.n * a.dv), la(a.n), ob(b.n * b.dv), lb(b.n);
    float* outs[] = {oa.data(), ob.data()};
    float* lses[] = {la.data(), lb.data()};
    kernels::wallForwardHeads(heads, 2, outs, lses, {}, 3);
    std::vector<float> oa1(a.n * a.dv), la1(a.n);
    kernels::wallForward(a.view(), oa1.data(), la1.data());
    EXPECT_EQ(oa, oa1);
    EXPECT_EQ(la, la1);
    std::vector<float> ob1(b.n * b.dv), lb1(b.n);
    kernels::wallForward(b.view(), ob1.data(), lb1.data());
    EXPECT_EQ(ob, ob1);
}

TEST(WallTiles, EveryMapMatchesDenseAtOddOffsets) {
    auto c = test::randomWallCase(211, 24, 8, 12, 5, 0.5);
    const auto ref = test::denseWall(c);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    auto head = c.view();
    head.lse = lse.data();
    const kernels::WallTileSource source(head);
    struct Rect {
        int64_t r0, rows, c0, cols;
    };
    for (const Rect rect : {Rect{-5, 40, -9, 30}, Rect{70, 100, 3, 150}, Rect{190, 40, 150, 80},
                            Rect{0, 211, 0, 211}}) {
        for (auto kind :
             {kernels::MapKind::Attention, kernels::MapKind::Logit, kernels::MapKind::Decay}) {
            std::vector<float> tile(rect.rows * rect.cols);
            source.compute(kind, rect.r0, rect.rows, rect.c0, rect.cols, tile.data());
            double worst = 0;
            for (int64_t r = 0; r < rect.rows; ++r) {
                for (int64_t col = 0; col < rect.cols; ++col) {
                    const int64_t i = rect.r0 + r, j = rect.c0 + col;
                    const bool inside = i >= 0 && i < c.n && j >= 0 && j <= i;
                    const double expected =
                        !inside ? (kind == kernels::MapKind::Logit ? -INFINITY : 0.0)
                        : kind == kernels::MapKind::Attention ? ref.probs[i * c.n + j]
                        : kind == kernels::MapKind::Logit     ? ref.logits[i * c.n + j]
                                                              : ref.decay[i * c.n + j];
                    const double got = tile[r * rect.cols + col];
                    if (!inside) {
                        ASSERT_EQ(got, expected) << i << "," << j;
                        continue;
                    }
                    worst = std::max(worst,
                                     std::abs(got - expected) / std::max(1.0, std::abs(expected)));
                }
            }
            EXPECT_LT(worst, 2e-5) << kernels::toString(kind) << " rect " << rect.r0;
        }
    }
}

TEST(WallTiles, AttentionRowsSumToOne) {
    auto c = test::randomWallCase(300, 16, 8, 16, 11, -1.0, 0.0);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    auto head = c.view();
    head.lse = lse.data();
    std::vector<float> tile(c.n * c.n);
    kernels::computeWallTile(head, kernels::MapKind::Attention, 0, c.n, 0, c.n, tile.data());
    for (int64_t i = 0; i < c.n; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < c.n; ++j)
            sum += tile[i * c.n + j];
        ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    }
}

TEST(WallTiles, MissingLseGivesNaNAndNoAttention) {
    const auto c = test::randomWallCase(20, 8, 4, 8, 3);
    const kernels::WallTileSource source(c.view());
    EXPECT_FALSE(source.hasMap(kernels::MapKind::Attention));
    EXPECT_TRUE(source.hasMap(kernels::MapKind::Decay));
    std::vector<float> tile(16);
    source.compute(kernels::MapKind::Attention, 0, 4, 0, 4, tile.data());
    for (float x : tile)
        EXPECT_TRUE(std::isnan(x));
}

}  // namespace
}  // namespace gatescope
