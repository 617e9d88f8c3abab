// The you-are-here box (widgets/view/minimap.h): where the visible region lies on the whole map,
// none when the whole map is on screen, still a visible mark at token zoom on a long sequence.
#include <gtest/gtest.h>

#include "widgets/view/minimap.h"

namespace gatescope::widgets {
namespace {

TEST(Minimap, TheBoxIsTheVisibleRegionScaledToTheMinimap) {
    const auto box = minimapBox(TokenRect{100, 200, 300, 400}, 1000, 100);
    ASSERT_TRUE(box);
    EXPECT_FLOAT_EQ(box->x0, 10);
    EXPECT_FLOAT_EQ(box->x1, 30);
    EXPECT_FLOAT_EQ(box->y0, 20);
    EXPECT_FLOAT_EQ(box->y1, 40);
}

TEST(Minimap, NoBoxWhenTheWholeMapIsOnScreenOrNoneOfIt) {
    EXPECT_FALSE(minimapBox(TokenRect{-50, -50, 1050, 1050}, 1000, 100));  // fit all, margins
    EXPECT_FALSE(minimapBox(TokenRect{0, 0, 950, 960}, 1000, 100));
    EXPECT_FALSE(minimapBox(TokenRect{1200, 1200, 1300, 1300}, 1000, 100));  // beyond the map
    EXPECT_FALSE(minimapBox(TokenRect{0, 0, 10, 10}, 0, 100));
}

TEST(Minimap, ClampedToTheMapAndNeverThinnerThanTwoPixels) {
    // Eight tokens of 65,536 on a 110 px minimap: a 2 px mark at the right place.
    const auto tiny = minimapBox(TokenRect{32768, 32768, 32776, 32776}, 65536, 110);
    ASSERT_TRUE(tiny);
    EXPECT_FLOAT_EQ(tiny->x1 - tiny->x0, 2);
    EXPECT_NEAR((tiny->x0 + tiny->x1) / 2, 55, 0.01);
    // Half off the map: clamped to its edge.
    const auto edge = minimapBox(TokenRect{900, -100, 1100, 100}, 1000, 100);
    ASSERT_TRUE(edge);
    EXPECT_FLOAT_EQ(edge->x1, 100);
    EXPECT_FLOAT_EQ(edge->y0, 0);
    EXPECT_FLOAT_EQ(edge->y1, 10);
}

TEST(Minimap, APixelMapsToTheTokensItShowsClampedToTheMap) {
    // 96 px for 1418 tokens: pixel 48 is token 709 across and down; outside the square clamps.
    const MapPoint mid = minimapPoint(48, 24, 1418, 96);
    EXPECT_DOUBLE_EQ(mid.key, 709);
    EXPECT_DOUBLE_EQ(mid.query, 354.5);
    const MapPoint outside = minimapPoint(-5, 200, 1418, 96);
    EXPECT_DOUBLE_EQ(outside.key, 0);
    EXPECT_DOUBLE_EQ(outside.query, 1418);
    // Round trip with the box: the point of a box's centre lies inside the region it boxes.
    const TokenRect visible{1000, 40000, 1600, 40400};
    const auto box = minimapBox(visible, 65536, 96);
    ASSERT_TRUE(box);
    const MapPoint back = minimapPoint((box->x0 + box->x1) / 2, (box->y0 + box->y1) / 2, 65536, 96);
    EXPECT_NEAR(back.key, 1300, 700);
    EXPECT_NEAR(back.query, 40200, 700);
}

}  // namespace
}  // namespace gatescope::widgets
