// Compare mode's view model against naive computations: difference tiles, per-row divergences,
// the context link, and on two real traces of one text (random FoX checkpoints of two seeds)
// the loss summary, the retention difference and the exact row divergences, which must average
// to what `core::compareTraces` reports for the head.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "core/analysis/compare.h"
#include "support/sample_trace.h"
#include "widgets/view/compare_model.h"
#include "widgets/view/context_link.h"
#include "widgets/view/difference_loader.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

TileData randomTile(int64_t rows, int64_t cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    TileData t;
    t.rows = rows, t.cols = cols;
    t.values.assign(kTile * kTile, 0.f);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            t.values[r * kTile + c] = u(rng) < 0.2f ? 0.f : std::pow(u(rng), 4.f);
    return t;
}

}  // namespace

TEST(CompareTiles, DifferenceAndLogRatioMatchTheFormulaCellByCell) {
    const TileData a = randomTile(200, 256, 1), b = randomTile(256, 180, 2);
    for (DiffMode mode : {DiffMode::Difference, DiffMode::LogRatio}) {
        TileKey key;
        key.variant = static_cast<int>(mode);
        TilePtr d = differenceTile(a, b, mode, key);
        EXPECT_EQ(d->key, key);
        ASSERT_EQ(d->rows, 200);
        ASSERT_EQ(d->cols, 180);
        double lo = 1e9, hi = -1e9;
        for (int64_t r = 0; r < kTile; ++r)
            for (int64_t c = 0; c < kTile; ++c) {
                double want = 0;
                if (r < 200 && c < 180) {
                    const double x = a.at(r, c), y = b.at(r, c);
                    want = mode == DiffMode::Difference ? x - y
                                                        : std::log(std::max(x, kLogRatioFloor)) -
                                                              std::log(std::max(y, kLogRatioFloor));
                    lo = std::min(lo, want), hi = std::max(hi, want);
                }
                ASSERT_NEAR(d->at(r, c), want, 1e-5) << r << "," << c;
            }
        EXPECT_NEAR(d->min, lo, 1e-5);
        EXPECT_NEAR(d->max, hi, 1e-5);
    }
}

TEST(CompareTiles, RowDivergenceMatchesTheDefinition) {
    const std::vector<float> p = {0.5f, 0.25f, 0.25f, 0.f}, q = {0.25f, 0.25f, 0.f, 0.5f};
    const RowDivergence d = rowDivergence(p.data(), q.data(), 4);
    const double kl = 0.5 * std::log(2.0) + 0.25 * std::log(0.25 / 1e-12);
    EXPECT_NEAR(d.klAB, kl, 1e-9);
    double js = 0;
    for (int j = 0; j < 4; ++j) {
        const double m = 0.5 * (p[j] + q[j]);
        if (p[j] > 0) js += 0.5 * p[j] * std::log(p[j] / m);
        if (q[j] > 0) js += 0.5 * q[j] * std::log(q[j] / m);
    }
    EXPECT_NEAR(d.js, js, 1e-12);
    EXPECT_LE(d.js, std::log(2.0));
    EXPECT_NEAR(rowDivergence(p.data(), p.data(), 4).klAB, 0, 1e-12);
    EXPECT_NEAR(rowDivergence(q.data(), p.data(), 4).js, d.js, 1e-12) << "JS is symmetric";
}

TEST(CompareTiles, SampleRowsSpreadsOverTheRange) {
    EXPECT_EQ(sampleRows(10, 14, 100), (std::vector<int64_t>{10, 11, 12, 13}));
    const auto rows = sampleRows(0, 1000, 4);
    EXPECT_EQ(rows, (std::vector<int64_t>{0, 250, 500, 750}));
    EXPECT_TRUE(sampleRows(5, 5, 10).empty());
}

TEST(ContextLink, LocksLayerHeadMapCursorAndSharedColoursOnly) {
    ViewContext a, b, diff;
    a.setLayerHead(1, 2);
    a.setCursor(40);
    ContextLink link;
    link.add(a, true);
    link.add(b, true);
    link.add(diff, false);
    EXPECT_EQ(b.layer(), 1);
    EXPECT_EQ(diff.head(), 2);
    EXPECT_EQ(b.cursor(), 40);
    b.setLayerHead(0, 3);
    EXPECT_EQ(a.head(), 3);
    EXPECT_EQ(diff.head(), 3);
    diff.setCursor(7);
    EXPECT_EQ(a.cursor(), 7);
    EXPECT_EQ(b.cursor(), 7);
    a.setMap(MapView::Decay);
    EXPECT_EQ(diff.map(), MapView::Decay);
    ColorSettings diverging = diff.colors();
    diverging.colormap = ColormapKind::Diverging;
    diff.setColors(diverging);
    EXPECT_NE(a.colors().colormap, ColormapKind::Diverging) << "the diff keeps its own colours";
    ColorSettings magma = a.colors();
    magma.colormap = ColormapKind::Magma;
    a.setColors(magma);
    EXPECT_EQ(b.colors().colormap, ColormapKind::Magma);
    EXPECT_EQ(diff.colors().colormap, ColormapKind::Diverging);
    const uint64_t serial = b.focusSerial();
    a.focusOn(99);
    EXPECT_EQ(b.cursor(), 99);
    EXPECT_GT(b.focusSerial(), serial) << "a focus request is passed on as one";
    a.setHover(HoverInfo{1, 1, 0.5, true, 0});
    EXPECT_FALSE(b.hover()) << "hover stays per view";
}

class CompareTraces : public ::testing::Test {
protected:
    void SetUp() override {
        auto [pa, pb] = sample::compareTraces();
        ASSERT_FALSE(pa.empty()) << "could not trace the two checkpoints";
        auto da = TraceDocument::open(pa), db = TraceDocument::open(pb);
        ASSERT_TRUE(da && db);
        a = *da, b = *db;
    }
    std::shared_ptr<const TraceDocument> a, b;
};

TEST_F(CompareTraces, LossSummaryIsTheNaiveDeltaOfTheSameTokens) {
    auto s = summarizeComparison(*a->reader, *b->reader);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_TRUE(s->identical());
    EXPECT_EQ(s->aligned(), a->n());
    ASSERT_TRUE(s->loss);
    ASSERT_EQ(int64_t(s->lossStrip.size()), a->n());
    double sum = 0;
    int64_t used = 0, better = 0;
    for (int64_t t = 0; t < a->n(); ++t) {
        const double d = double(a->perToken->loss[t]) - b->perToken->loss[t];
        if (std::isnan(d)) continue;
        EXPECT_NEAR(s->lossStrip[t], d, 1e-4) << t;
        sum += d, ++used, better += d < 0;
    }
    EXPECT_NEAR(s->loss->meanDelta, sum / used, 1e-6);
    EXPECT_NEAR(s->loss->aBetterFraction, double(better) / used, 1e-12);
    ASSERT_FALSE(s->loss->exponentialBins.empty());
    double share = 0;
    int64_t count = 0;
    for (const auto& bin : s->loss->exponentialBins)
        share += bin.shareOfGap.value_or(0), count += bin.count;
    EXPECT_EQ(count, used) << "the bins cover every aligned position";
    EXPECT_NEAR(share, 1.0, 1e-6) << "the bins' shares add up to the whole gap";
}

TEST_F(CompareTraces, RetentionDifferenceIsExpOfTheGatesOfAMinusB) {
    auto d = retentionDifference(*a->reader, *b->reader, 1, 1);
    ASSERT_TRUE(d) << d.error().describe();
    auto ga = a->reader->gates(1), gb = b->reader->gates(1);
    ASSERT_TRUE(ga && gb);
    const int64_t n = ga->shape[1];
    ASSERT_EQ(int64_t(d->size()), n);
    for (int64_t t = 0; t < n; t += 7)
        EXPECT_NEAR((*d)[t], std::exp(ga->values[n + t]) - std::exp(gb->values[n + t]), 1e-6);
}

TEST_F(CompareTraces, RowDivergencesOfEveryRowAverageToCoreCompare) {
    const int64_t n = a->n();
    std::atomic<bool> cancel{false};
    auto rows = rowDivergences(*a->reader, *b->reader, 1, 0, sampleRows(0, n, int(n)), cancel);
    ASSERT_TRUE(rows) << rows.error().describe();
    ASSERT_EQ(int64_t(rows->size()), n);
    double kl = 0, js = 0;
    for (const auto& r : *rows)
        kl += r.klAB, js += r.js;
    core::CompareOptions options;
    options.layers = {1};
    options.heads = {0};
    auto comparison = core::compareTraces(*a->reader, *b->reader, options);
    ASSERT_TRUE(comparison);
    ASSERT_TRUE(comparison->layers.at(0).heads.at(0).attention);
    const auto& head = *comparison->layers[0].heads[0].attention;
    EXPECT_GT(kl, 0);
    EXPECT_NEAR(kl / n, head.klAB, 1e-6 * (1 + kl / n));
    EXPECT_NEAR(js / n, head.js, 1e-6);
    cancel = true;
    EXPECT_FALSE(rowDivergences(*a->reader, *b->reader, 1, 0, {5}, cancel));
}

TEST_F(CompareTraces, DifferenceLoaderCombinesBothTracesTilesAtTheSameKey) {
    auto loader = differenceLoader(a->reader, b->reader);
    TraceTileLoader la(a->reader), lb(b->reader);
    for (bool exact : {true, false}) {
        for (DiffMode mode : {DiffMode::Difference, DiffMode::LogRatio}) {
            TileKey key{1, 1, MapView::Attention,    data::Pool::Max, exact ? 0 : 1, exact,
                        0, 0, static_cast<int>(mode)};
            auto d = loader(key);
            ASSERT_TRUE(d) << d.error().describe();
            EXPECT_EQ((*d)->key, key);
            TileKey source = key;
            source.variant = 0;
            auto ta = la.load(source), tb = lb.load(source);
            ASSERT_TRUE(ta && tb);
            for (int64_t r = 0; r < (*d)->rows; r += 3)
                for (int64_t c = 0; c <= r && c < (*d)->cols; c += 5) {
                    const double x = (*ta)->at(r, c), y = (*tb)->at(r, c);
                    const double want = mode == DiffMode::Difference
                                            ? x - y
                                            : std::log(std::max(x, kLogRatioFloor)) -
                                                  std::log(std::max(y, kLogRatioFloor));
                    ASSERT_NEAR((*d)->at(r, c), want, 1e-5) << r << "," << c;
                }
        }
    }
}

TEST(ContextLink, MapsTheCursorThroughAnAlignmentOfTwoTokenizations) {
    // A: 6 tokens; B: 3 tokens ending at the bytes where A's tokens 1, 3 and 5 end.
    const std::vector<std::pair<int64_t, int64_t>> pairs = {{1, 0}, {3, 1}, {5, 2}};
    const auto aToB = alignedPosition(pairs, true), bToA = alignedPosition(pairs, false);
    EXPECT_EQ(aToB(0), -1);
    EXPECT_EQ(aToB(1), 0);
    EXPECT_EQ(aToB(4), 1);
    EXPECT_EQ(bToA(2), 5);
    ViewContext a, b;
    ContextLink link;
    link.add(a, true);
    link.add(b, true, true, aToB, bToA);
    a.setCursor(4);
    EXPECT_EQ(b.cursor(), 1);
    b.setCursor(2);
    EXPECT_EQ(a.cursor(), 5);
    a.setCursor(0);  // before the first aligned token: B's cursor stays
    EXPECT_EQ(b.cursor(), 2);
}
