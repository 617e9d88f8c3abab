// GsaTileSource against the dense float64 map written from the formula, against the forward's
// own output (o = A v), through the pyramid builder, and against Wall's logit map over the same
// factors (the identity kernels::cuda::buildGsaPyramids is built on).
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "kernels/cpu/gsa_forward.h"
#include "kernels/cpu/gsa_tile_source.h"
#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/wall_tile_source.h"
#include "kernels/gsa_reference.h"

namespace gatescope {
namespace {

/// A problem run through gsaForward: the per-query-head factors a trace would store.
struct Traced {
    test::GsaProblem problem;
    std::vector<float> out, probs, cumsum;  // out [H,n,dv], probs [H,n,m], cumsum [Hkv,n,m]

    explicit Traced(test::GsaProblem p) : problem(std::move(p)) {
        const auto& q = problem;
        out.resize(q.heads * q.n * q.dv);
        probs.resize(q.heads * q.n * q.slots);
        cumsum.resize(q.kvHeads * q.n * q.slots);
        kernels::GsaForwardInput in{
            q.n,        q.heads,    q.kvHeads,          q.dk,           q.dv,   q.slots, q.q.data(),
            q.k.data(), q.v.data(), q.logForget.data(), q.write.data(), q.scale};
        kernels::GsaForwardOutput o;
        o.out = out.data();
        o.slotProbs = probs.data();
        o.logForgetCumsum = cumsum.data();
        EXPECT_TRUE(kernels::gsaForward(in, o));
    }
    int kv(int h) const { return h / (problem.heads / problem.kvHeads); }
    kernels::GsaHead head(int h, bool withWrite = true) const {
        const int64_t n = problem.n, m = problem.slots;
        return {n, problem.slots, probs.data() + h * n * m,
                withWrite ? problem.write.data() + kv(h) * n * m : nullptr,
                cumsum.data() + kv(h) * n * m};
    }
    /// Dense map from the same float factors, in double: the reference for every tile.
    std::vector<double> dense(int h, bool decay = false) const {
        const int64_t n = problem.n, m = problem.slots;
        std::vector<double> p(probs.begin() + h * n * m, probs.begin() + (h + 1) * n * m);
        std::vector<double> g(cumsum.begin() + kv(h) * n * m, cumsum.begin() + (kv(h) + 1) * n * m);
        std::vector<float> ones(n * m, 1.0f);
        const float* s = decay ? ones.data() : problem.write.data() + kv(h) * n * m;
        return test::gsaDenseMap(n, m, p.data(), s, g.data());
    }
};

std::vector<float> tile(const kernels::TileSource& source, kernels::MapKind kind, int64_t row0,
                        int64_t rows, int64_t col0, int64_t cols) {
    std::vector<float> out(rows * cols, -7.0f);
    source.compute(kind, row0, rows, col0, cols, out.data());
    return out;
}

/// The same window cut from the dense map (0 outside [0, n)).
std::vector<double> window(const std::vector<double>& dense, int64_t n, int64_t row0, int64_t rows,
                           int64_t col0, int64_t cols) {
    std::vector<double> out(rows * cols, 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            const int64_t t = row0 + r, i = col0 + c;
            if (t >= 0 && t < n && i >= 0 && i < n) out[r * cols + c] = dense[t * n + i];
        }
    return out;
}

TEST(GsaTileSource, TilesMatchDenseFloat64Map) {
    Traced traced(test::GsaProblem::random(301, 4, 2, 12, 9, 7, 11u));
    const int64_t n = traced.problem.n;
    // Windows off every grid: negative offsets, past n, straddling and far below the diagonal.
    const std::vector<std::array<int64_t, 4>> windows = {
        {0, 301, 0, 301},  {-5, 37, -3, 60}, {70, 80, 0, 150}, {250, 77, 190, 140},
        {200, 101, 3, 29}, {130, 1, 130, 1}, {5, 20, 100, 50}};
    for (int h = 0; h < traced.problem.heads; ++h) {
        kernels::GsaTileSource source(traced.head(h));
        ASSERT_EQ(source.size(), n);
        for (auto kind : {kernels::MapKind::Attention, kernels::MapKind::Decay}) {
            const auto dense = traced.dense(h, kind == kernels::MapKind::Decay);
            for (const auto& [r0, rows, c0, cols] : windows) {
                SCOPED_TRACE(::testing::Message()
                             << "head " << h << " " << kernels::toString(kind) << " window " << r0
                             << "+" << rows << " x " << c0 << "+" << cols);
                EXPECT_LT(test::maxRelativeError(tile(source, kind, r0, rows, c0, cols),
                                                 window(dense, n, r0, rows, c0, cols)),
                          2e-6);
            }
        }
    }
}

TEST(GsaTileSource, AttentionTimesValuesIsTheLayerOutput) {
    Traced traced(test::GsaProblem::random(200, 2, 1, 16, 11, 9, 3u));
    const auto& p = traced.problem;
    for (int h = 0; h < p.heads; ++h) {
        kernels::GsaTileSource source(traced.head(h));
        const auto a = tile(source, kernels::MapKind::Attention, 0, p.n, 0, p.n);
        std::vector<double> o(p.n * p.dv, 0.0),
            ref(traced.out.begin() + h * p.n * p.dv, traced.out.begin() + (h + 1) * p.n * p.dv);
        for (int64_t t = 0; t < p.n; ++t) {
            double rowSum = 0.0, expectedSum = 0.0;
            for (int64_t i = 0; i < p.n; ++i) {
                rowSum += a[t * p.n + i];
                for (int d = 0; d < p.dv; ++d)
                    o[t * p.dv + d] += a[t * p.n + i] * p.v[(traced.kv(h) * p.n + i) * p.dv + d];
            }
            for (int j = 0; j < p.slots; ++j) {
                const int64_t at = (traced.kv(h) * p.n + t) * p.slots + j;
                expectedSum += traced.probs[(h * p.n + t) * p.slots + j] *
                               (1.0 - std::exp(double(traced.cumsum[at])));
            }
            ASSERT_NEAR(rowSum, expectedSum, 1e-5) << "row " << t;  // telescoping row sum
            ASSERT_LE(rowSum, 1.0 + 1e-6);
        }
        EXPECT_LT(test::maxRelativeError(o, ref), 1e-5) << "head " << h;
        const auto decay = tile(source, kernels::MapKind::Decay, 0, p.n, 0, p.n);
        for (int64_t t = 0; t < p.n; ++t)
            ASSERT_NEAR(decay[t * p.n + t], 1.0, 1e-6);
    }
}

TEST(GsaTileSource, HugeCumulativeGatesStayExactAndFinite) {
    // Slot 0 forgets with log alpha = -12 each token (G reaches -18000 at the end), slot 1 with -3
    // (G ~ -4500); inside one 64-token block slot 0 spans 768 > the factorized limit.
    auto problem = test::GsaProblem::random(1500, 1, 1, 5, 4, 4, 8u);
    for (int64_t t = 0; t < problem.n; ++t) {
        for (int j = 0; j < 2; ++j) {
            problem.logForget[t * 4 + j] = j == 0 ? -12.0f : -3.0f;
            problem.write[t * 4 + j] =
                static_cast<float>(1.0 - std::exp(problem.logForget[t * 4 + j]));
        }
    }
    Traced traced(std::move(problem));
    EXPECT_LT(traced.cumsum[(traced.problem.n - 1) * 4], -17000.0f);
    kernels::GsaTileSource source(traced.head(0));
    const auto dense = traced.dense(0);
    for (const auto& [r0, rows, c0, cols] : std::vector<std::array<int64_t, 4>>{
             {1300, 200, 1250, 250}, {1400, 100, 0, 300}, {0, 1500, 0, 1500}}) {
        const auto got = tile(source, kernels::MapKind::Attention, r0, rows, c0, cols);
        for (float x : got)
            ASSERT_TRUE(std::isfinite(x));
        EXPECT_LT(test::maxRelativeError(got, window(dense, 1500, r0, rows, c0, cols)), 2e-6);
    }
}

TEST(GsaTileSource, ReportsWhichMapsItCanServe) {
    Traced traced(test::GsaProblem::random(40, 1, 1, 4, 4, 3, 5u));
    kernels::GsaTileSource full(traced.head(0));
    EXPECT_TRUE(full.hasMap(kernels::MapKind::Attention));
    EXPECT_TRUE(full.hasMap(kernels::MapKind::Decay));
    EXPECT_FALSE(full.hasMap(kernels::MapKind::Logit));
    for (float x : tile(full, kernels::MapKind::Logit, 0, 5, 0, 5))
        EXPECT_TRUE(std::isnan(x));
    kernels::GsaTileSource noWrite(traced.head(0, false));
    EXPECT_FALSE(noWrite.hasMap(kernels::MapKind::Attention));
    EXPECT_TRUE(noWrite.hasMap(kernels::MapKind::Decay));
    for (float x : tile(noWrite, kernels::MapKind::Attention, 0, 5, 0, 5))
        EXPECT_TRUE(std::isnan(x));
}

TEST(GsaTileSource, FeedsThePyramidBuilder) {
    Traced traced(test::GsaProblem::random(300, 1, 1, 6, 5, 5, 21u));
    kernels::GsaTileSource source(traced.head(0));
    const auto dense = traced.dense(0);
    kernels::PyramidRequest request;
    request.kind = kernels::MapKind::Attention;
    request.finestLevel = 0;
    request.coarsestLevel = 1;
    request.threads = 2;
    std::map<std::tuple<int, int, int64_t, int64_t>, std::vector<float>> tiles;
    kernels::PyramidCallbacks callbacks;
    callbacks.onTile = [&](int level, kernels::Pool pool, int64_t tr, int64_t tc, const float* t) {
        tiles[{level, int(pool), tr, tc}].assign(t,
                                                 t + kernels::kPyramidTile * kernels::kPyramidTile);
    };
    ASSERT_TRUE(kernels::buildPyramid(source, request, callbacks));
    const int64_t n = 300, side = kernels::kPyramidTile;
    double worst0 = 0.0, worst1 = 0.0;
    for (int64_t t = 0; t < n; ++t)
        for (int64_t i = 0; i <= t; ++i) {
            const auto& level0 = tiles.at({0, int(kernels::Pool::Max), t / side, i / side});
            worst0 =
                std::max(worst0, std::abs(level0[(t % side) * side + i % side] - dense[t * n + i]));
        }
    for (int64_t r = 0; r < 150; ++r)
        for (int64_t c = 0; c <= r; ++c) {
            double mx = 0.0;
            for (int64_t t = 2 * r; t < 2 * r + 2; ++t)
                for (int64_t i = 2 * c; i < 2 * c + 2; ++i)
                    mx = std::max(mx, i <= t ? dense[t * n + i] : 0.0);
            const auto& level1 = tiles.at({1, int(kernels::Pool::Max), 0, 0});
            worst1 = std::max(worst1, std::abs(level1[r * side + c] - mx));
        }
    EXPECT_LT(worst0, 1e-6);
    EXPECT_LT(worst1, 1e-6);
}

}  // namespace
// GSA's maps are Wall's channel sums: with q = p, k = s (ones for the decay map), P = G over all
// slots and scale 1, Wall's Logit[t, i] = sum_j p_tj s_ij exp(G_tj - G_ij) is GSA's Attention
// (and with k = 1 its Decay) for i <= t. buildGsaPyramids runs Wall's GPU blocks on that.
TEST(GsaTileSource, MapsAreWallLogitsOverTheSlots) {
    Traced traced(test::GsaProblem::random(333, 2, 1, 8, 6, 12, 17u));
    const auto& p = traced.problem;
    const std::vector<float> ones(p.n * p.slots, 1.0f);
    for (int h = 0; h < p.heads; ++h) {
        const auto gsa = traced.head(h);
        for (auto kind : {kernels::MapKind::Attention, kernels::MapKind::Decay}) {
            kernels::WallHead wall;
            wall.n = p.n;
            wall.dk = wall.gatedChannels = p.slots;
            wall.q = gsa.slotProbs;
            wall.k = kind == kernels::MapKind::Decay ? ones.data() : gsa.write;
            wall.logDecayCumsum = gsa.logForgetCumsum;
            wall.scale = 1.0f;
            const auto expected = tile(kernels::GsaTileSource(gsa), kind, 0, p.n, 0, p.n);
            const auto logits =
                tile(kernels::WallTileSource(wall), kernels::MapKind::Logit, 0, p.n, 0, p.n);
            std::vector<float> got, want;  // the causal cells (Wall's logits are -inf above)
            for (int64_t t = 0; t < p.n; ++t)
                for (int64_t i = 0; i <= t; ++i) {
                    got.push_back(logits[t * p.n + i]);
                    want.push_back(expected[t * p.n + i]);
                }
            EXPECT_LT(test::maxRelativeError(got, want), 2e-6)
                << "head " << h << " " << kernels::toString(kind);
        }
    }
}

}  // namespace gatescope
