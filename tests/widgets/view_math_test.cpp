// Viewport, level choice and tile planning: pure functions, no display.
#include <cmath>

#include <gtest/gtest.h>

#include "widgets/view/tile_plan.h"
#include "widgets/view/viewport.h"

using namespace gatescope::widgets;

TEST(Viewport, ZoomKeepsTheTokenUnderTheMouse) {
    Viewport v;
    v.setScreenSize(800, 600);
    v.setSequenceLength(65536);
    const double key = v.keyAt(123), query = v.queryAt(456);
    v.zoomAt(123, 456, 3.0);
    EXPECT_NEAR(v.keyAt(123), key, 1e-6);
    EXPECT_NEAR(v.queryAt(456), query, 1e-6);
}

// Issue 25: wheeling in over the blank upper half used to fill the screen with masked cells.
TEST(Viewport, ZoomingInOverTheMaskedFutureLandsOnTheDiagonal) {
    Viewport v;
    v.setScreenSize(800, 800);
    v.setSequenceLength(8192);
    const double sx = 700, sy = 100;  // upper right: keys far after the query
    ASSERT_GT(v.keyAt(sx), v.queryAt(sy));
    const double query = v.queryAt(sy);
    for (int i = 0; i < 12; ++i)
        v.zoomAt(sx, sy, 1.25);
    EXPECT_NEAR(v.queryAt(sy), query, 1e-6);        // the row under the mouse is kept
    EXPECT_NEAR(v.keyAt(sx), v.queryAt(sy), 1e-6);  // its diagonal cell is under the mouse
    const TokenRect r = v.visible();
    EXPECT_LT(r.x0, r.y1) << "cells at or below the diagonal are on screen";
    // Zooming out keeps the token under the mouse as before, masked or not.
    const double key = v.keyAt(sx + 50), row = v.queryAt(sy);
    v.zoomAt(sx + 50, sy, 0.8);
    EXPECT_NEAR(v.keyAt(sx + 50), key, 1e-6);
    EXPECT_NEAR(v.queryAt(sy), row, 1e-6);
}

TEST(Viewport, FitAllShowsTheWholeMapAndZoomIsClamped) {
    Viewport v;
    v.setScreenSize(1000, 500);
    v.setSequenceLength(65536);
    const TokenRect r = v.visible();
    EXPECT_DOUBLE_EQ(r.x0, 0);
    EXPECT_DOUBLE_EQ(r.y0, 0);
    EXPECT_DOUBLE_EQ(r.x1, 65536);
    EXPECT_DOUBLE_EQ(r.y1, 65536);
    for (int i = 0; i < 100; ++i)
        v.zoomAt(500, 250, 2.0);
    EXPECT_DOUBLE_EQ(v.tokensPerPixel(), v.minTokensPerPixel());
    for (int i = 0; i < 100; ++i)
        v.zoomAt(500, 250, 0.5);
    EXPECT_DOUBLE_EQ(v.tokensPerPixel(), v.maxTokensPerPixel());
}

TEST(Viewport, PanAndCellLookup) {
    Viewport v;
    v.setScreenSize(400, 400);
    v.setSequenceLength(1000);
    v.setTokensPerPixel(0.1);  // 10 px per token
    v.centerOn(500, 300);
    auto cell = v.cellAt(200, 200);
    ASSERT_TRUE(cell);
    EXPECT_EQ(cell->key, 500);
    EXPECT_EQ(cell->query, 300);
    v.panPixels(-20, 0);  // drag left: content moves left, keys grow
    EXPECT_EQ(v.cellAt(200, 200)->key, 502);
    v.centerOn(-100, -100);
    EXPECT_FALSE(v.cellAt(10, 10));
    const TokenRect r = v.visible();
    EXPECT_DOUBLE_EQ(r.x0, 0);
    EXPECT_NEAR(r.x1, 0, 1e-9);  // everything visible is left of the map: clipped to empty
}

TEST(LevelChoice, PicksTheStoredLevelClosestToOnePixel) {
    const LevelRange range{6, 8, true, true};
    EXPECT_EQ(chooseLevel(300, range, 1000).level, 8);  // coarser than stored: coarsest
    EXPECT_EQ(chooseLevel(100, range, 1000).level, 7);  // 2^6 < 100 <= 2^7: cells >= 1 px
    EXPECT_EQ(chooseLevel(128, range, 1000).level, 7);
    EXPECT_FALSE(chooseLevel(100, range, 1000).exact);
    EXPECT_FALSE(chooseLevel(1.5, range, 4).exact);  // a cell is less than a pixel: stay pooled
    EXPECT_EQ(chooseLevel(1.5, range, 4).level, 6);
    // Finer than the finest level: exact tiles when few, else the finest level stretched.
    EXPECT_TRUE(chooseLevel(0.5, range, 4).exact);
    const LevelChoice tooMany = chooseLevel(8, range, 500);
    EXPECT_FALSE(tooMany.exact);
    EXPECT_EQ(tooMany.level, 6);
    EXPECT_TRUE(chooseLevel(8, LevelRange{6, 8, false, true}, 5000).exact);  // no pyramid
    EXPECT_FALSE(chooseLevel(0.5, LevelRange{6, 8, true, false}, 1).exact);  // no factors
}

TEST(TilePlan, VisibleTilesAreCausalCoverTheRectAndStartAtTheCentre) {
    const int64_t n = 4096;
    TileKey base;
    base.level = 0;
    const TokenRect rect{0, 0, 4096, 4096};
    const auto tiles = visibleTiles(rect, n, base);
    EXPECT_EQ(static_cast<int64_t>(tiles.size()), 16 * 17 / 2);
    EXPECT_EQ(static_cast<int64_t>(tiles.size()), causalTileCount(rect, n, 0));
    for (const auto& t : tiles)
        EXPECT_LE(t.col, t.row);
    // Ordered by distance from the centre (tile 7.5, 7.5).
    auto dist = [](const TileKey& t) { return std::hypot(t.col - 7.5, t.row - 7.5); };
    for (size_t i = 1; i < tiles.size(); ++i)
        EXPECT_LE(dist(tiles[i - 1]), dist(tiles[i]) + 1e-12);
    // A rect inside one tile at level 2 (tiles of 1024 tokens).
    base.level = 2;
    const auto one = visibleTiles(TokenRect{1100, 2100, 1200, 2200}, n, base);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].row, 2);
    EXPECT_EQ(one[0].col, 1);
    EXPECT_TRUE(visibleTiles(TokenRect{3000, 0, 4000, 900}, n, base).empty());  // above diagonal
}
