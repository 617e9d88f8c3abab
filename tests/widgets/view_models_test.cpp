// Token search, position parsing, series binning, retention maths and the shared view context.
#include <cmath>

#include <gtest/gtest.h>

#include "widgets/view/retention_model.h"
#include "widgets/view/series_binning.h"
#include "widgets/view/token_search.h"
#include "widgets/view/view_context.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {
data::TokenTable table(const std::vector<std::string>& pieces) {
    data::TokenTable t;
    int64_t at = 0;
    for (const auto& p : pieces) {
        t.ids.push_back(static_cast<int32_t>(t.ids.size()));
        t.text.push_back(p);
        t.byteOffsets.push_back({at, at + static_cast<int64_t>(p.size())});
        t.sourceText += p;
        at += static_cast<int64_t>(p.size());
    }
    return t;
}
}  // namespace

TEST(TokenSearch, TokensStringsAcrossTokenBoundariesAndWrapping) {
    const auto t = table({"The", " cat", " sat", " on", " the", " mat"});
    EXPECT_EQ(findTokens(t, "at"), (std::vector<int64_t>{1, 2, 5}));
    EXPECT_EQ(findString(t, "sat on"), (std::vector<int64_t>{2}));
    EXPECT_EQ(findString(t, "t on"), (std::vector<int64_t>{2}));  // starts inside " sat"
    EXPECT_EQ(findString(t, "he"), (std::vector<int64_t>{0, 4}));
    EXPECT_TRUE(findString(t, "dog").empty());
    EXPECT_EQ(nextMatch({2, 5}, 2), 5);
    EXPECT_EQ(nextMatch({2, 5}, 5), 2);  // wraps
    EXPECT_FALSE(nextMatch({}, 0));
    data::TokenTable ids = t;
    ids.sourceText.clear();  // id inputs: search the joined token texts
    EXPECT_EQ(findString(ids, "sat on"), (std::vector<int64_t>{2}));
}

TEST(TokenSearch, ParsePosition) {
    EXPECT_EQ(parsePosition("1234", 65536), 1234);
    EXPECT_EQ(parsePosition("12,345", 65536), 12345);
    EXPECT_EQ(parsePosition("50%", 1000), 500);
    EXPECT_EQ(parsePosition("100%", 1000), 999);
    EXPECT_FALSE(parsePosition("1000", 1000));
    EXPECT_FALSE(parsePosition("-1", 1000));
    EXPECT_FALSE(parsePosition("12a", 1000));
    EXPECT_FALSE(parsePosition("", 1000));
}

TEST(SeriesBinning, KeepsSpikesAndSkipsNan) {
    std::vector<float> v(1000, 1.f);
    v[517] = 9.f;
    v[3] = NAN;
    const auto bins = binSeries(v.data(), 1000, 0, 1000, 10);
    ASSERT_EQ(bins.size(), 10u);
    EXPECT_FLOAT_EQ(bins[5].max, 9.f);
    EXPECT_FLOAT_EQ(bins[5].min, 1.f);
    EXPECT_NEAR(bins[5].mean, 1.08f, 1e-5);
    EXPECT_FLOAT_EQ(bins[0].mean, 1.f);  // NaN ignored
    // Zoomed in: bins narrower than a position take that position.
    const auto fine = binSeries(v.data(), 1000, 517, 518, 4);
    for (const Bin& b : fine)
        EXPECT_FLOAT_EQ(b.max, 9.f);
    const auto outside = binSeries(v.data(), 1000, 2000, 3000, 3);
    for (const Bin& b : outside)
        EXPECT_TRUE(b.empty);
}

TEST(Retention, CumulativeProductIsTheProductOfRetentions) {
    RetentionData d;
    d.n = 6;
    d.channels = 2;
    const float f[6][2] = {{0.9f, 0.5f},  {0.8f, 0.5f}, {0.7f, 1.f},
                           {0.6f, 0.25f}, {1.f, 1.f},   {0.5f, 0.5f}};
    for (auto& row : f)
        for (float x : row)
            d.logRetention.push_back(std::log(x));
    const auto c0 = cumulativeRetention(d, 0, 1);
    EXPECT_TRUE(std::isnan(c0[0]));
    EXPECT_FLOAT_EQ(c0[1], 1.f);
    EXPECT_NEAR(c0[2], 0.7, 1e-6);
    EXPECT_NEAR(c0[3], 0.7 * 0.6, 1e-6);
    EXPECT_NEAR(c0[5], 0.7 * 0.6 * 1.0 * 0.5, 1e-6);
    const auto c1 = cumulativeRetention(d, 1, 0);
    EXPECT_NEAR(c1[3], 0.5 * 1 * 0.25, 1e-6);
    EXPECT_NEAR(channelRetention(d, 1)[3], 0.25, 1e-6);
}

TEST(ViewContext, NotifiesListenersAndLinksCursorAndSelection) {
    ViewContext ctx;
    int calls = 0;
    const int id = ctx.addListener([&] { ++calls; });
    ctx.setCursor(42);
    EXPECT_EQ(ctx.cursor(), 42);
    EXPECT_EQ(ctx.selection(), (std::pair<int64_t, int64_t>{42, 43}));
    ctx.setCursor(42);  // no change: no notification
    EXPECT_EQ(calls, 1);
    const uint64_t serial = ctx.focusSerial();
    ctx.focusOn(7);
    EXPECT_EQ(ctx.focusSerial(), serial + 1);
    EXPECT_EQ(ctx.cursor(), 7);
    ctx.addBookmark({"needle", 7, 1, 2});
    ASSERT_EQ(ctx.bookmarks().size(), 1u);
    ctx.removeListener(id);
    ctx.setLayerHead(1, 3);
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(ctx.head(), 3);
}
