// Exact tile recompute against the dense float64 maps, at offsets and sizes that cross the
// diagonal, the window edge, the internal 64 x 256 chunks and the end of the sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "additive_head.h"
#include "dense_reference.h"
#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/tile_recompute.h"

namespace gatescope {
namespace {

using kernels::MapKind;
using test::additive::HeadSpec;
using test::additive::RandomHead;

struct Tile {
    int64_t row0, rows, col0, cols;
};

// The dense value of cell (i, j) of `map`, with the fill value outside [0, n)^2.
double denseCell(const std::vector<double>& map, int64_t n, int64_t i, int64_t j, double fill) {
    if (i < 0 || j < 0 || i >= n || j >= n) return fill;
    return map[i * n + j];
}

void expectTileMatches(const RandomHead& head, const test::additive::DenseMaps& dense, MapKind kind,
                       const Tile& t) {
    const int64_t n = head.spec.n;
    std::vector<float> tile(t.rows * t.cols, 1234.5f);
    kernels::AdditiveDecayTileSource source(head.view());
    source.compute(kind, t.row0, t.rows, t.col0, t.cols, tile.data());
    const auto& map = kind == MapKind::Attention ? dense.attention
                      : kind == MapKind::Decay   ? dense.decay
                                                 : dense.logit;
    const double fill = kind == MapKind::Logit ? -std::numeric_limits<double>::infinity() : 0.0;
    double worst = 0.0;
    for (int64_t r = 0; r < t.rows; ++r) {
        for (int64_t c = 0; c < t.cols; ++c) {
            const double want = denseCell(map, n, t.row0 + r, t.col0 + c, fill);
            const float got = tile[r * t.cols + c];
            if (std::isinf(want)) {
                ASSERT_EQ(got, want) << "cell " << t.row0 + r << ", " << t.col0 + c;
                continue;
            }
            // Logits: absolute error relative to max(1, |x|); probabilities and decays: absolute
            // (they lie in [0, 1]).
            const double scale = kind == MapKind::Logit ? std::max(1.0, std::abs(want)) : 1.0;
            worst = std::max(worst, std::abs(got - want) / scale);
        }
    }
    EXPECT_LT(worst, 2e-6) << kernels::toString(kind) << " tile at (" << t.row0 << ", " << t.col0
                           << ") size " << t.rows << " x " << t.cols;
}

TEST(TileRecompute, MatchesDenseMapsForEveryKind) {
    const Tile tiles[] = {
        {0, 1, 0, 1},       {0, 300, 0, 300},   {117, 183, 90, 210}, {5, 70, 3, 301},
        {250, 80, 240, 77}, {-7, 20, -3, 15},   {290, 40, 280, 40},  {64, 65, 200, 100},
        {299, 1, 0, 300},   {13, 251, 13, 257}, {310, 5, 0, 5},
    };
    uint32_t seed = 10;
    for (bool decay : {false, true}) {
        for (int64_t window : {0, 1, 7, 100}) {
            HeadSpec spec;
            spec.n = 300;
            spec.dk = 48;
            spec.dv = 16;
            spec.decay = decay;
            spec.window = window;
            spec.qScale = 2.0f;
            spec.rowPad = 2;
            spec.seed = ++seed;
            RandomHead head(spec);
            head.lse.resize(spec.n);
            std::vector<float> out(spec.n * spec.dv);
            kernels::attentionForward(head.view(), out.data(), head.lse.data());
            const auto dense = test::additive::denseMaps(head.view());
            SCOPED_TRACE("decay " + std::to_string(decay) + " window " + std::to_string(window));
            for (const Tile& t : tiles)
                for (MapKind kind : {MapKind::Attention, MapKind::Decay, MapKind::Logit})
                    expectTileMatches(head, dense, kind, t);
        }
    }
}

TEST(TileRecompute, AttentionRowsSumToOneWithTheForwardLse) {
    HeadSpec spec;
    spec.n = 777;
    spec.dk = 64;
    spec.dv = 64;
    spec.qScale = 3.0f;
    RandomHead head(spec);
    head.lse.resize(spec.n);
    std::vector<float> out(spec.n * spec.dv);
    kernels::attentionForward(head.view(), out.data(), head.lse.data());
    std::vector<float> tile(spec.n * spec.n);
    kernels::computeTile(head.view(), MapKind::Attention, 0, spec.n, 0, spec.n, tile.data());
    for (int64_t i = 0; i < spec.n; ++i) {
        double sum = 0.0;
        for (int64_t j = 0; j < spec.n; ++j)
            sum += tile[i * spec.n + j];
        ASSERT_NEAR(sum, 1.0, 2e-6) << "row " << i;
    }
}

TEST(TileRecompute, ReportsWhichMapsItCanServe) {
    HeadSpec spec;
    spec.n = 10;
    RandomHead head(spec);
    kernels::AdditiveDecayHead view = head.view();
    EXPECT_FALSE(kernels::AdditiveDecayTileSource(view).hasMap(MapKind::Attention));  // no lse
    EXPECT_TRUE(kernels::AdditiveDecayTileSource(view).hasMap(MapKind::Logit));
    EXPECT_TRUE(kernels::AdditiveDecayTileSource(view).hasMap(MapKind::Decay));
    // Without the factors a map needs, the tile is NaN rather than silently wrong.
    std::vector<float> tile(4, 0.0f);
    kernels::computeTile(view, MapKind::Attention, 0, 2, 0, 2, tile.data());
    for (float x : tile)
        EXPECT_TRUE(std::isnan(x));
    view.q = nullptr;
    view.k = nullptr;
    EXPECT_FALSE(kernels::AdditiveDecayTileSource(view).hasMap(MapKind::Logit));
    // Decay needs only c.
    kernels::computeTile(view, MapKind::Decay, 3, 2, 2, 2, tile.data());
    EXPECT_NEAR(tile[0], std::exp(double(head.c[3]) - head.c[2]), 1e-6);
    EXPECT_EQ(tile[1], 1.0f);  // (3, 3)
    EXPECT_EQ(kernels::AdditiveDecayTileSource(view).size(), 10);
}

}  // namespace
}  // namespace gatescope
