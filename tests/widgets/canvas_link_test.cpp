// CanvasLink: compare mode's canvases share one colour range (the union of what each sees) and
// the cell under the mouse.
#include <gtest/gtest.h>

#include "widgets/view/canvas_link.h"

using namespace gatescope::widgets;

TEST(CanvasLink, AAndBShareOneRangeFromTheUnionOfWhatEachSees) {
    CanvasLink link;
    const int a = link.join(), b = link.join();
    ColorSettings colors;  // automatic, linear: from 0 for non-negative data
    colors.scale = ScaleKind::Linear;
    EXPECT_DOUBLE_EQ(link.update(a, SeenValues{true, 0, 1.0, 1e-9}, colors).hi, 1.0);
    // B's largest value is smaller: A's range stays, and B gets that same range.
    const ValueRange rb = link.update(b, SeenValues{true, 0, 0.948, 1e-9}, colors);
    EXPECT_DOUBLE_EQ(rb.lo, 0);
    EXPECT_DOUBLE_EQ(rb.hi, 1.0);
    // B sees more than A: both follow.
    const uint64_t serial = link.serial();
    EXPECT_DOUBLE_EQ(link.update(b, SeenValues{true, 0, 2.0, 1e-9}, colors).hi, 2.0);
    EXPECT_GT(link.serial(), serial);
    EXPECT_DOUBLE_EQ(link.range().hi, 2.0);
    // A canvas with no tiles yet keeps the range in force.
    EXPECT_DOUBLE_EQ(link.update(a, SeenValues{}, colors).hi, 2.0);
    // Log: the smallest positive value of either.
    colors.scale = ScaleKind::Log;
    link.update(a, SeenValues{true, 0, 1.0, 1e-4}, colors);
    EXPECT_DOUBLE_EQ(link.range().lo, 1e-9);
}

TEST(CanvasLink, SmallMovesOfTheRangeAreIgnored) {
    EXPECT_FALSE(rangeMoved({0, 1}, {0, 1.04}));
    EXPECT_TRUE(rangeMoved({0, 1}, {0, 1.06}));
    CanvasLink link;
    const int a = link.join();
    ColorSettings colors;
    link.update(a, SeenValues{true, 0, 1.0, 0}, colors);
    EXPECT_DOUBLE_EQ(link.update(a, SeenValues{true, 0, 0.97, 0}, colors).hi, 1.0);
    EXPECT_DOUBLE_EQ(link.update(a, SeenValues{true, 0, 0.5, 0}, colors).hi, 0.5);
}

TEST(CanvasLink, ThePointerBelongsToTheCanvasUnderTheMouse) {
    CanvasLink link;
    const int a = link.join(), b = link.join();
    link.setPointer(CanvasLink::Pointer{a, 10, 4});
    ASSERT_TRUE(link.pointer());
    EXPECT_EQ(link.pointer()->query, 10);
    link.clearPointer(b);  // B was not pointing: A's pointer stays
    EXPECT_TRUE(link.pointer());
    link.clearPointer(a);
    EXPECT_FALSE(link.pointer());
    // Another tokenization: cells are not the same tokens, nothing is shared.
    CanvasLink unaligned(false);
    unaligned.setPointer(CanvasLink::Pointer{unaligned.join(), 1, 1});
    EXPECT_FALSE(unaligned.pointer());
}
