// The Retention dock's window of positions (widgets/view/position_window.h): it follows the map's
// queries, zooms about the mouse down to 8 positions, and never leaves the sequence.
#include <gtest/gtest.h>

#include "widgets/view/position_window.h"

namespace gatescope::widgets {
namespace {

TEST(PositionWindow, FollowsTheCanvasInsideTheSequence) {
    auto w = PositionWindow::following(100, 164, 1000);
    EXPECT_TRUE(w.follow);
    EXPECT_DOUBLE_EQ(w.begin, 100);
    EXPECT_DOUBLE_EQ(w.end, 164);
    // Past the end (the canvas shows the masked future beyond N): shifted back inside.
    w = PositionWindow::following(980, 1044, 1000);
    EXPECT_DOUBLE_EQ(w.begin, 936);
    EXPECT_DOUBLE_EQ(w.end, 1000);
    // Closer than 8 positions: widened about the centre.
    w = PositionWindow::following(500, 502, 1000);
    EXPECT_DOUBLE_EQ(w.end - w.begin, 8);
    EXPECT_DOUBLE_EQ(w.begin, 497);
    // Nothing visible yet: the whole sequence.
    w = PositionWindow::following(0, 0, 1000);
    EXPECT_DOUBLE_EQ(w.begin, 0);
    EXPECT_DOUBLE_EQ(w.end, 1000);
}

TEST(PositionWindow, ZoomsAboutAPointToTokenResolution) {
    auto w = PositionWindow::whole(64000);
    for (int i = 0; i < 40; ++i)
        w = w.zoomed(12345.5, 0.5, 64000);
    EXPECT_FALSE(w.follow);
    EXPECT_DOUBLE_EQ(w.end - w.begin, PositionWindow::kMinSpan);
    EXPECT_LE(w.begin, 12345.5);
    EXPECT_GE(w.end, 12345.5);
    // The position under the mouse stays under it while zooming (away from the edges).
    auto v = PositionWindow::whole(1000).zoomed(250, 0.5, 1000);
    EXPECT_DOUBLE_EQ(v.begin, 125);
    EXPECT_DOUBLE_EQ(v.end, 625);
    // Out again: back to the whole sequence, never beyond it.
    for (int i = 0; i < 10; ++i)
        v = v.zoomed(900, 2, 1000);
    EXPECT_DOUBLE_EQ(v.begin, 0);
    EXPECT_DOUBLE_EQ(v.end, 1000);
}

TEST(PositionWindow, PositionsUnderTheMouseAndBack) {
    const PositionWindow w{100, 108, false};
    EXPECT_EQ(w.positionAt(0, 1000), 100);
    EXPECT_EQ(w.positionAt(0.99, 1000), 107);
    EXPECT_EQ(w.positionAt(1, 1000), 108);  // the right edge: one past the window
    EXPECT_EQ(w.positionAt(0.5, 104), 103);
    EXPECT_DOUBLE_EQ(w.fractionOf(100), 0.0625);
    EXPECT_DOUBLE_EQ(w.fractionOf(103.5), 0.5);
}

}  // namespace
}  // namespace gatescope::widgets
