// Keyboard navigation of the map (display-free): what each key does to the cursor and the view.
#include <gtest/gtest.h>

#include "widgets/view/map_keys.h"

using namespace gatescope::widgets;

namespace {
Viewport zoomedView(int64_t n, double tpp) {
    Viewport v;
    v.setSequenceLength(n);
    v.setScreenSize(800, 600);
    v.setTokensPerPixel(tpp);
    return v;
}

/// Share of screen samples over the map that are masked future cells (key > query).
double maskedShare(const Viewport& v) {
    int masked = 0, cells = 0;
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 40; ++x) {
            const double k = v.keyAt((x + 0.5) * 20), q = v.queryAt((y + 0.5) * 20);
            if (k < 0 || q < 0 || k >= v.sequenceLength() || q >= v.sequenceLength()) continue;
            ++cells;
            masked += int(k) > int(q);
        }
    return cells ? double(masked) / cells : 1;
}
}  // namespace

TEST(MapKeys, ArrowsStepTheCursorAndTheViewFollows) {
    Viewport v = zoomedView(10000, 1.0 / 20);  // 20 px cells: 40 x 30 on screen
    placeDiagonal(v, 500);
    EXPECT_EQ(applyMapKey(v, 500, MapKey::Down, false), 501);
    EXPECT_EQ(applyMapKey(v, 501, MapKey::Up, false), 500);
    EXPECT_EQ(applyMapKey(v, 500, MapKey::Right, true), 516);
    EXPECT_EQ(applyMapKey(v, 516, MapKey::Left, true), 500);
    // Stepping far off screen brings the cursor's diagonal cell back into view.
    int64_t c = 500;
    for (int i = 0; i < 10; ++i)
        c = applyMapKey(v, c, MapKey::Down, true);
    EXPECT_EQ(c, 660);
    EXPECT_TRUE(diagonalVisible(v, 660));
    // Clamped to the sequence; no cursor yet starts at the first row on screen.
    EXPECT_EQ(applyMapKey(v, 9999, MapKey::Down, false), 9999);
    EXPECT_EQ(applyMapKey(v, 0, MapKey::Up, false), 0);
    EXPECT_EQ(applyMapKey(v, 5, MapKey::Home, false), 0);
    EXPECT_EQ(applyMapKey(v, 5, MapKey::End, false), 9999);
    EXPECT_TRUE(diagonalVisible(v, 9999));
}

TEST(MapKeys, PagesMoveAScreenOfRowsAlongTheDiagonalAndPlusMinusZoom) {
    Viewport v = zoomedView(10000, 1.0 / 20);
    placeDiagonal(v, 1000);
    const double q0 = v.queryAt(0), k0 = v.keyAt(0);
    EXPECT_EQ(applyMapKey(v, 1000, MapKey::PageDown, false), 1030);  // 600 px / 20 px rows
    EXPECT_NEAR(v.queryAt(0) - q0, 30, 1e-6);
    EXPECT_NEAR(v.keyAt(0) - k0, 30, 1e-6);
    EXPECT_EQ(applyMapKey(v, 1030, MapKey::PageUp, false), 1000);
    EXPECT_NEAR(v.queryAt(0), q0, 1e-6);
    const double tpp = v.tokensPerPixel();
    EXPECT_EQ(applyMapKey(v, 1000, MapKey::ZoomIn, false), 1000);
    EXPECT_NEAR(v.tokensPerPixel(), tpp / 1.25, 1e-12);
    // About the cursor: its cell stays where it was.
    const double x = v.screenX(1000.5);
    applyMapKey(v, 1000, MapKey::ZoomOut, false);
    EXPECT_NEAR(v.screenX(1000.5), x, 1e-6);
    EXPECT_NEAR(v.tokensPerPixel(), tpp, 1e-12);
}

TEST(MapKeys, GoToPlacesTheDiagonalSoLittleOfTheScreenIsMasked) {
    Viewport v = zoomedView(10000, 1.0 / 16);
    v.centerOn(5000.5, 5000.5);  // what Go to Position did: half the screen masked
    EXPECT_GT(maskedShare(v), 0.45);
    placeDiagonal(v, 5000.5);
    EXPECT_TRUE(diagonalVisible(v, 5000));
    EXPECT_LT(maskedShare(v), 0.2);
    EXPECT_NE(std::string(shortcutHelp()).find("Page Up / Page Down"), std::string::npos);
}
