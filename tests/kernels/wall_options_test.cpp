// The Wall Attention options of the authors' reference (sliding window, sink logit, FoX-style
// scalar gate, packed documents), alone and together, in the blockwise forward and the tile
// recompute, against the dense float64 reference (wall_reference.h). Sizes are not multiples of
// the 64-token blocks, windows straddle them, documents start mid-block.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gsa_reference.h"
#include "kernels/cpu/wall_forward.h"
#include "kernels/cpu/wall_tile_source.h"
#include "wall_reference.h"

namespace gatescope {
namespace {

using test::maxRelativeError;

struct OptionCase {
    const char* name;
    int64_t n;
    int dk, dg;
    double gateBias, gMax;
    test::WallCaseOptions options;
};

class WallOptions : public ::testing::TestWithParam<OptionCase> {
protected:
    test::WallCase make() const {
        const auto& p = GetParam();
        return test::randomWallCase(p.n, p.dk, 8, p.dg, 977 + p.n, p.gateBias, p.gMax, p.options);
    }
};

TEST_P(WallOptions, ForwardMatchesDenseFloat64) {
    const auto c = make();
    const auto ref = test::denseWall(c);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    const double outErr = maxRelativeError(out, ref.out), lseErr = maxRelativeError(lse, ref.lse);
    EXPECT_LT(outErr, 2e-5);
    EXPECT_LT(lseErr, 2e-5);
    RecordProperty("max_rel_err_out", std::to_string(outErr));
    RecordProperty("max_rel_err_lse", std::to_string(lseErr));
}

TEST_P(WallOptions, EveryTileMatchesDenseAtOddOffsets) {
    const auto c = make();
    const auto ref = test::denseWall(c);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    auto head = c.view();
    head.lse = lse.data();
    const kernels::WallTileSource source(head);
    EXPECT_EQ(source.window(), c.window);
    // P and c are stored as float: at |P| ~ 400 (strong unclamped gates) their own rounding
    // (half an ulp, 2^-24 |P| each) moves exp(P_i - P_j) by ~3e-5 relative.
    double largestPrefix = 0;
    for (float x : c.P)
        largestPrefix = std::max(largestPrefix, double(std::abs(x)));
    for (float x : c.c)
        largestPrefix = std::max(largestPrefix, double(std::abs(x)));
    const double tolerance = std::max(2e-5, 2.0 * largestPrefix * std::ldexp(1.0, -24));
    struct Rect {
        int64_t r0, rows, c0, cols;
    };
    const int64_t n = c.n;
    for (const Rect rect : {Rect{-3, 29, -7, 41}, Rect{n / 3, n / 2 + 5, 11, n - 20},
                            Rect{n - 37, 50, n - 70, 80}, Rect{0, n, 0, n}}) {
        for (auto kind :
             {kernels::MapKind::Attention, kernels::MapKind::Logit, kernels::MapKind::Decay}) {
            std::vector<float> tile(rect.rows * rect.cols);
            source.compute(kind, rect.r0, rect.rows, rect.c0, rect.cols, tile.data());
            double worst = 0;
            for (int64_t r = 0; r < rect.rows; ++r) {
                for (int64_t col = 0; col < rect.cols; ++col) {
                    const int64_t i = rect.r0 + r, j = rect.c0 + col;
                    // Disallowed: outside the map, above the diagonal, outside the window or
                    // the document; the reference's logit is -inf exactly there.
                    const bool allowed =
                        i >= 0 && i < n && j >= 0 && j < n && !std::isinf(ref.logits[i * n + j]);
                    const double got = tile[r * rect.cols + col];
                    if (!allowed) {
                        ASSERT_EQ(got, kind == kernels::MapKind::Logit ? -INFINITY : 0.0)
                            << i << "," << j;
                        continue;
                    }
                    const double expected = kind == kernels::MapKind::Logit ? ref.logits[i * n + j]
                                            : kind == kernels::MapKind::Decay
                                                ? ref.decay[i * n + j]
                                                : ref.probs[i * n + j];
                    worst = std::max(worst,
                                     std::abs(got - expected) / std::max(1.0, std::abs(expected)));
                }
            }
            EXPECT_LT(worst, tolerance) << kernels::toString(kind) << " rect " << rect.r0;
        }
    }
}

TEST_P(WallOptions, RowsSumToOneMinusTheSinkMass) {
    const auto c = make();
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
        const double sinkMass = std::exp(c.sink - lse[i]);  // 0 without a sink
        ASSERT_NEAR(sum + sinkMass, 1.0, 2e-5) << "row " << i;
    }
}

test::WallCaseOptions window(int64_t w) {
    test::WallCaseOptions o;
    o.window = w;
    return o;
}
test::WallCaseOptions sinkOnly() {
    test::WallCaseOptions o;
    o.sink = 1.7;
    return o;
}
test::WallCaseOptions scalarOnly() {
    test::WallCaseOptions o;
    o.scalarGate = true;
    o.scalarBias = 0.5;  // strong scalar forgetting: c falls by ~1 per token
    return o;
}
test::WallCaseOptions documents(std::vector<int64_t> starts) {
    test::WallCaseOptions o;
    o.starts = std::move(starts);
    return o;
}
test::WallCaseOptions everything(int64_t w, std::vector<int64_t> starts) {
    test::WallCaseOptions o;
    o.window = w;
    o.sink = -0.6;
    o.scalarGate = true;
    o.starts = std::move(starts);
    return o;
}

INSTANTIATE_TEST_SUITE_P(
    Options, WallOptions,
    ::testing::Values(
        OptionCase{"window17_n53", 53, 16, 16, 1.0, 0.86, window(17)},
        OptionCase{"window64_n131_subdim", 131, 16, 6, 0.0, 0.86, window(64)},
        OptionCase{"window17_n300", 300, 24, 24, -1.0, 0.0, window(17)},
        OptionCase{"window1_n53", 53, 8, 8, 1.0, 0.86, window(1)},
        OptionCase{"sink_n131", 131, 16, 16, 1.0, 0.86, sinkOnly()},
        OptionCase{"scalar_n131_ungated", 131, 16, 0, 1.0, 0.86, scalarOnly()},
        OptionCase{"scalar_n300_subdim", 300, 16, 10, 2.0, 0.86, scalarOnly()},
        OptionCase{"documents_n300", 300, 16, 16, 0.0, 0.86, documents({0, 1, 40, 64, 65, 190})},
        OptionCase{"all_w64_n300_subdim", 300, 24, 12, 0.5, 0.86, everything(64, {0, 100, 171})},
        OptionCase{"all_w17_n131", 131, 16, 16, -2.0, 0.0, everything(17, {0, 7, 70})},
        OptionCase{"all_w64_n53_ungated", 53, 16, 0, 1.0, 0.86, everything(64, {0, 30})}),
    [](const auto& info) { return std::string(info.param.name); });

// Each packed document is computed exactly as if it were alone: same outputs and lse as a
// separate run on its slice (P restarts at the document, as the slice's own prefix does).
TEST(WallDocuments, EachDocumentIsComputedAsIfAlone) {
    test::WallCaseOptions o = everything(64, {0, 90, 91, 200});
    o.sink = -std::numeric_limits<double>::infinity();
    const auto c = test::randomWallCase(251, 16, 8, 12, 31, 0.5, 0.86, o);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    for (std::size_t d = 0; d < c.starts.size(); ++d) {
        const int64_t a = c.starts[d], b = d + 1 < c.starts.size() ? c.starts[d + 1] : c.n;
        auto alone = c.view();
        alone.n = b - a;
        alone.q += a * c.dk;
        alone.k += a * c.dk;
        alone.v += a * c.dv;
        alone.logDecayCumsum += a * c.dg;
        alone.scalarDecayCumsum += a;
        alone.documentStarts = nullptr;
        alone.documents = 0;
        std::vector<float> o1(alone.n * c.dv), l1(alone.n);
        kernels::wallForward(alone, o1.data(), l1.data());
        // Blocks sit on another grid when the document is alone: rounding differs, nothing more.
        EXPECT_LT(maxRelativeError(
                      std::vector<float>(out.begin() + a * c.dv, out.begin() + b * c.dv), o1),
                  1e-6)
            << "document " << d;
        EXPECT_LT(maxRelativeError(std::vector<float>(lse.begin() + a, lse.begin() + b), l1), 1e-6)
            << "document " << d;
    }
}

// A long first document of strong gates drives P to about -1700; the next one restarts near 0.
// An anchor spanning both would form exp(+1700): the blocks must stop at the boundary.
TEST(WallDocuments, RestartingPrefixesNeverOverflow) {
    const auto c = test::randomWallCase(2100, 16, 8, 16, 5, -6.0, 0.86, documents({0, 2000}));
    ASSERT_LT(c.P[1999 * c.dg], -1500.0f);
    ASSERT_GT(c.P[2000 * c.dg], -1.0f);
    std::vector<float> out(c.n * c.dv), lse(c.n);
    kernels::wallForward(c.view(), out.data(), lse.data());
    for (float x : out)
        ASSERT_TRUE(std::isfinite(x));
    for (float x : lse)
        ASSERT_TRUE(std::isfinite(x));
    auto head = c.view();
    head.lse = lse.data();
    std::vector<float> tile(128 * 128);
    kernels::computeWallTile(head, kernels::MapKind::Attention, 1990, 128, 1940, 128, tile.data());
    for (float x : tile)
        ASSERT_TRUE(std::isfinite(x));
    // The second document's rows: dense float64 over its own keys only.
    for (int64_t i : {2000, 2050, 2099}) {
        double rowMax = -INFINITY;
        std::vector<double> logits;
        for (int64_t j = 2000; j <= i; ++j) {
            double s = 0;
            for (int ch = 0; ch < c.dk; ++ch) {
                double retained = 0;
                for (int64_t t = j + 1; t <= i; ++t)
                    retained += c.g[t * c.dg + ch];
                s += double(c.q[i * c.dk + ch]) * c.k[j * c.dk + ch] * std::exp(retained);
            }
            logits.push_back(c.scale * s);
            rowMax = std::max(rowMax, logits.back());
        }
        double sum = 0;
        for (double l : logits)
            sum += std::exp(l - rowMax);
        EXPECT_NEAR(lse[i], rowMax + std::log(sum), 1e-4) << "row " << i;
    }
}

}  // namespace
}  // namespace gatescope
