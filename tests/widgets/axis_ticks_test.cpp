// Position ticks of the map's axes above cell level.
#include <gtest/gtest.h>

#include "widgets/view/axis_ticks.h"

using namespace gatescope::widgets;

TEST(AxisTicks, RoundStepsAtLeastTheSpacingApart) {
    EXPECT_EQ(tickStep(2.9, 90), 500);  // 261 tokens wanted: 500
    EXPECT_EQ(tickStep(0.5, 90), 50);
    EXPECT_EQ(tickStep(0.01, 90), 1);
    EXPECT_EQ(tickStep(100, 90), 10000);
    EXPECT_EQ(tickStep(1.0, 150), 200);
    const auto ticks = axisTicks(-20, 1418, 1418, 2.9, 90);
    ASSERT_EQ(ticks.size(), 3u);
    EXPECT_EQ(ticks[0].position, 0);
    EXPECT_EQ(ticks[2].position, 1000);
    EXPECT_EQ(ticks[2].text, "1,000");
    // Within the visible span and the sequence only.
    const auto mid = axisTicks(120, 880, 1418, 2.9, 90);
    ASSERT_EQ(mid.size(), 1u);
    EXPECT_EQ(mid[0].position, 500);
    EXPECT_EQ(groupedNumber(65536), "65,536");
    EXPECT_EQ(groupedNumber(999), "999");
}
