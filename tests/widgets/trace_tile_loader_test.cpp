// TraceTileLoader on a real trace: exact tiles against the formula evaluated here from the stored
// factors, and stored pyramid cells against pooling of exact tiles.
#include <cmath>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/view/retention_model.h"
#include "widgets/view/trace_document.h"
#include "widgets/view/trace_tile_loader.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

std::shared_ptr<const TraceDocument> openSample() {
    const auto path = sample::sampleTrace();
    if (path.empty()) return nullptr;
    auto doc = TraceDocument::open(path);
    return doc ? *doc : nullptr;
}

}  // namespace

TEST(TraceTileLoader, ExactTilesFollowTheAdditiveDecayFormula) {
    auto doc = openSample();
    ASSERT_TRUE(doc) << "could not make the sample trace with " << GATESCOPE_CLI;
    const data::TraceReader& r = *doc->reader;
    const data::LayerInfo* layer = r.summary().layer(1);
    ASSERT_TRUE(layer);
    ASSERT_EQ(layer->header.scoreKind, "additive_decay");
    const int head = 2;
    const int64_t n = doc->n();
    const double scale = layer->header.extras.value("scale", 1.0);
    const int kvHead = head * layer->header.nKvHeads / layer->header.nHeads;
    auto q = r.factor(1, "q", head, 0, n), k = r.factor(1, "k", kvHead, 0, n);
    auto lse = r.factor(1, "lse", head, 0, n), c = r.factor(1, "log_decay_cumsum", head, 0, n);
    ASSERT_TRUE(q && k && lse && c);
    const int64_t d = q->shape[1];

    TraceTileLoader loader(doc->reader);
    TileKey key{1, head, MapView::Attention, data::Pool::Max, 0, true, (n - 1) / kTile, 0};
    auto tile = loader.load(key);
    ASSERT_TRUE(tile) << tile.error().describe();
    TileKey dkey = key;
    dkey.map = MapView::Decay;
    auto decay = loader.load(dkey);
    ASSERT_TRUE(decay);
    int checked = 0;
    for (int64_t rr = 0; rr < (*tile)->rows; rr += 7) {
        for (int64_t cc = 0; cc < (*tile)->cols; cc += 5) {
            const int64_t i = key.row * kTile + rr, j = key.col * kTile + cc;
            double dot = 0;
            for (int64_t x = 0; x < d; ++x)
                dot += double(q->values[i * d + x]) * k->values[j * d + x];
            const double ci = c->values[i], cj = c->values[j];
            const double expected = j <= i ? std::exp(scale * dot + ci - cj - lse->values[i]) : 0.0;
            EXPECT_NEAR((*tile)->at(rr, cc), expected, 1e-5 + 1e-4 * expected) << i << "," << j;
            EXPECT_NEAR((*decay)->at(rr, cc), j <= i ? std::exp(ci - cj) : 0.0, 1e-5)
                << i << "," << j;
            ++checked;
        }
    }
    EXPECT_GT(checked, 100);
    // Each attention row sums to 1 over its keys (checked on the last row, which sees every key).
    double sum = 0;
    const int64_t last = n - 1;
    for (int64_t t = 0; t <= last / kTile; ++t) {
        auto row = loader.load(
            TileKey{1, head, MapView::Attention, data::Pool::Max, 0, true, last / kTile, t});
        ASSERT_TRUE(row);
        for (int64_t cc = 0; cc < (*row)->cols; ++cc)
            sum += (*row)->at(last % kTile, cc);
    }
    EXPECT_NEAR(sum, 1.0, 1e-3);
}

TEST(TraceTileLoader, FinestPyramidCellsAreMaxAndMeanOfExactCells) {
    auto doc = openSample();
    ASSERT_TRUE(doc);
    const data::LayerInfo* layer = doc->summary().layer(0);
    const LevelRange range = levelRangeOf(*layer, MapView::Attention);
    ASSERT_TRUE(range.hasPyramid);
    ASSERT_TRUE(range.canRecompute);
    const int level = range.finest;
    const int64_t cell = int64_t{1} << level;
    TraceTileLoader loader(doc->reader);
    auto maxTile =
        loader.load(TileKey{0, 1, MapView::Attention, data::Pool::Max, level, false, 0, 0});
    auto meanTile =
        loader.load(TileKey{0, 1, MapView::Attention, data::Pool::Mean, level, false, 0, 0});
    ASSERT_TRUE(maxTile && meanTile);
    // Cell (r, c) of the finest level over exact values of the tokens it covers.
    const int64_t r = std::min<int64_t>(40, (*maxTile)->rows - 1), c = r / 2;
    const int64_t n = doc->n();
    double mx = 0, sum = 0;
    for (int64_t i = r * cell; i < std::min(n, (r + 1) * cell); ++i) {
        auto t = loader.load(TileKey{0, 1, MapView::Attention, data::Pool::Max, 0, true, i / kTile,
                                     c * cell / kTile});
        ASSERT_TRUE(t);
        for (int64_t j = c * cell; j < std::min(n, (c + 1) * cell); ++j) {
            const float v = (*t)->at(i % kTile, j % kTile);
            mx = std::max(mx, double(v));
            sum += v;
        }
    }
    EXPECT_NEAR((*maxTile)->at(r, c), mx, 1e-5 + 1e-4 * mx);
    EXPECT_NEAR((*meanTile)->at(r, c), sum / double(cell * cell), 1e-5 + 1e-4 * mx);
    EXPECT_TRUE(loader.hasMap(0, MapView::Decay));
    EXPECT_FALSE(loader.hasMap(7, MapView::Attention));
    EXPECT_FALSE(
        loader.load(TileKey{7, 0, MapView::Attention, data::Pool::Max, 0, true, 0, 0}).ok());
}

TEST(RetentionModel, LoadsScalarGatesOfEveryHead) {
    auto doc = openSample();
    ASSERT_TRUE(doc);
    auto data = loadRetention(*doc->reader, 0, 1);
    ASSERT_TRUE(data) << data.error().describe();
    EXPECT_FALSE((*data)->perChannel());
    ASSERT_EQ(static_cast<int>((*data)->headRetention.size()), (*data)->heads);
    auto gates = doc->reader->gatesForHead(0, 3, 0, doc->n());
    ASSERT_TRUE(gates);
    for (int64_t i = 0; i < doc->n(); i += 97) {
        EXPECT_NEAR((*data)->headRetention[3][static_cast<size_t>(i)],
                    std::exp(gates->values[static_cast<size_t>(i)]), 1e-6);
        EXPECT_LE((*data)->headRetention[3][static_cast<size_t>(i)], 1.0f + 1e-6f);
    }
}

TEST(RetentionModel, PerChannelGatesOfGsaAndTheirCumulativeProduct) {
    const auto path = sample::gsaTrace();
    if (path.empty()) GTEST_SKIP() << "no GSA fixture under " << GATESCOPE_FIXTURES_DIR;
    auto doc = TraceDocument::open(path);
    ASSERT_TRUE(doc);
    auto data = loadRetention(*(*doc)->reader, 1, 2);
    ASSERT_TRUE(data) << data.error().describe();
    ASSERT_TRUE((*data)->perChannel());
    const int channels = (*data)->channels;
    EXPECT_EQ(channels, (*doc)->summary().layer(1)->header.nChannels);
    auto gates = (*doc)->reader->gatesForHead(1, 2, 0, (*doc)->n());
    ASSERT_TRUE(gates);
    const int64_t from = 10, n = (*doc)->n();
    const int channel = channels - 1;
    const auto cum = cumulativeRetention(**data, channel, from);
    double product = 1;
    for (int64_t i = from + 1; i < n; ++i) {
        product *= std::exp(
            static_cast<double>(gates->values[static_cast<size_t>(i * channels + channel)]));
        EXPECT_NEAR(cum[static_cast<size_t>(i)], product, 1e-5 + 1e-4 * product) << i;
    }
}
