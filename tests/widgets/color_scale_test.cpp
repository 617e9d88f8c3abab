// Colormaps and colour scales.
#include <cmath>

#include <gtest/gtest.h>

#include "widgets/view/color_bar.h"
#include "widgets/view/color_scale.h"

using namespace gatescope::widgets;

namespace {
int channel(uint32_t rgba, int c) {
    return static_cast<int>((rgba >> (8 * c)) & 0xff);
}
}  // namespace

TEST(Colormap, EndsAreThePublishedColoursAndStepsAreSmall) {
    const Lut& viridis = colormapLut(ColormapKind::Viridis);
    EXPECT_EQ(viridis[0], packRgba(68, 1, 84));       // #440154
    EXPECT_EQ(viridis[255], packRgba(253, 231, 37));  // #fde725
    EXPECT_EQ(colormapLut(ColormapKind::Magma)[0], packRgba(0, 0, 4));
    for (int k = 0; k < kColormapCount; ++k) {
        const Lut& lut = colormapLut(static_cast<ColormapKind>(k));
        for (size_t i = 1; i < lut.size(); ++i) {
            for (int c = 0; c < 3; ++c)
                EXPECT_LE(std::abs(channel(lut[i], c) - channel(lut[i - 1], c)), 12);
            EXPECT_EQ(channel(lut[i], 3), 255);
        }
    }
    // The diverging map is light grey in the middle, blue below, red above.
    const Lut& div = colormapLut(ColormapKind::Diverging);
    EXPECT_NEAR(channel(div[128], 0), 221, 3);
    EXPECT_GT(channel(div[0], 2), channel(div[0], 0));
    EXPECT_GT(channel(div[255], 0), channel(div[255], 2));
    EXPECT_EQ(parseColormap("magma"), ColormapKind::Magma);
    EXPECT_FALSE(parseColormap("jet"));
}

TEST(ColorScale, LinearLogAndGamma) {
    ColorSettings s;
    const ValueRange r{0, 10};
    EXPECT_DOUBLE_EQ(normalizeValue(5, s, r), 0.5);
    EXPECT_DOUBLE_EQ(normalizeValue(-3, s, r), 0.0);
    EXPECT_DOUBLE_EQ(normalizeValue(30, s, r), 1.0);
    EXPECT_TRUE(std::isnan(normalizeValue(NAN, s, r)));
    s.scale = ScaleKind::Gamma;
    s.gamma = 0.5;
    EXPECT_DOUBLE_EQ(normalizeValue(2.5, s, r), 0.5);  // sqrt(0.25)
    s.scale = ScaleKind::Log;
    EXPECT_NEAR(normalizeValue(1e-2, s, ValueRange{1e-4, 1}), 0.5, 1e-12);
    EXPECT_DOUBLE_EQ(normalizeValue(0, s, ValueRange{1e-4, 1}), 0.0);  // clamped at the floor
}

TEST(ColorScale, RangesAutoFixedDivergingLog) {
    ColorSettings s;
    auto r = resolveRange(s, 0.1, 0.8, 0.1);
    EXPECT_DOUBLE_EQ(r.lo, 0);  // non-negative data starts at 0
    EXPECT_DOUBLE_EQ(r.hi, 0.8);
    s.colormap = ColormapKind::Diverging;
    r = resolveRange(s, -0.2, 0.5, 0.1);
    EXPECT_DOUBLE_EQ(r.lo, -0.5);
    EXPECT_DOUBLE_EQ(r.hi, 0.5);
    s.colormap = ColormapKind::Viridis;
    s.scale = ScaleKind::Log;
    r = resolveRange(s, 0, 0.5, 1e-3);
    EXPECT_DOUBLE_EQ(r.lo, 1e-3);
    s.autoRange = false;
    s.fixedLo = 2;
    s.fixedHi = 2;  // degenerate: widened
    r = resolveRange(s, 0, 1, 0);
    EXPECT_DOUBLE_EQ(r.lo, 2);
    EXPECT_GT(r.hi, r.lo);
}

TEST(ColorScale, ColorizeMatchesColorOfAndNanIsTransparent) {
    ColorSettings s;
    const ValueRange r{0, 1};
    const float values[6] = {0.f, 0.25f, 0.5f, 1.f, NAN, INFINITY};
    uint32_t out[6];
    colorize(values, 1, 6, 6, s, r, out);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out[i], colorOf(values[i], s, r)) << i;
    EXPECT_EQ(out[4], 0u);
    EXPECT_EQ(out[5], colormapLut(s.colormap)[255]);
    s.scale = ScaleKind::Gamma;
    colorize(values, 1, 4, 4, s, r, out);
    EXPECT_EQ(out[1], colormapLut(s.colormap)[128]);  // 0.25^0.5 = 0.5
}

TEST(ColorScale, GammaOnADivergingMapIsSymmetricAboutTheCentre) {
    ColorSettings s;
    s.colormap = ColormapKind::Diverging;
    s.scale = ScaleKind::Gamma;
    s.gamma = 0.5;
    const ValueRange r{-1, 1};
    EXPECT_DOUBLE_EQ(normalizeValue(0, s, r), 0.5);
    EXPECT_DOUBLE_EQ(normalizeValue(1, s, r), 1.0);
    EXPECT_DOUBLE_EQ(normalizeValue(-1, s, r), 0.0);
    EXPECT_NEAR(normalizeValue(0.25, s, r), 0.5 + 0.5 * 0.5, 1e-12);
    EXPECT_NEAR(normalizeValue(-0.25, s, r), 0.5 - 0.5 * 0.5, 1e-12);
}

TEST(ColorBar, LogLabelsStateTheFloorTheColoursShowNotTheDataMinimum) {
    ColorSettings s;
    s.scale = ScaleKind::Log;
    // The data's smallest positive weight is a float denormal; colours floor at 1e-8.
    const ValueRange r{1.7e-38, 1.0};
    const ValueRange shown = shownRange(s, r);
    EXPECT_DOUBLE_EQ(shown.lo, 1e-8);
    EXPECT_DOUBLE_EQ(shown.hi, 1.0);
    const auto ticks = colorBarTicks(s, r);
    ASSERT_EQ(ticks.size(), 3u);
    EXPECT_EQ(ticks[0].text, "1");
    EXPECT_EQ(ticks[1].text, "0.0001");  // geometric middle of 1e-8 .. 1
    EXPECT_EQ(ticks[2].text, "<= 1e-08");
    // Each label's value has the colour drawn at its height of the bar.
    for (const auto& t : ticks) {
        EXPECT_NEAR(normalizeValue(t.value, s, r), t.at, 1e-9) << t.text;
        EXPECT_NEAR(colorBarValueAt(s, r, t.at), t.value, 1e-12 + 1e-9 * t.value);
    }
    // A range above the floor is labelled as it is, without "<=".
    const auto plain = colorBarTicks(s, ValueRange{1e-3, 0.5});
    EXPECT_EQ(plain[2].text, "0.001");
    EXPECT_EQ(colorBarCaption(s), "log");
}

TEST(ColorBar, LinearAndGammaLabelTheRangeEndsAndTheMiddleValue) {
    ColorSettings s;
    s.scale = ScaleKind::Gamma;
    s.gamma = 0.5;
    const auto ticks = colorBarTicks(s, ValueRange{0, 0.00117});
    EXPECT_EQ(ticks[0].text, "0.00117");
    EXPECT_EQ(ticks[1].text, "0.000585");
    EXPECT_EQ(ticks[2].text, "0");
    EXPECT_EQ(colorBarCaption(s), "gamma 0.5");
    s.scale = ScaleKind::Linear;
    EXPECT_DOUBLE_EQ(shownRange(s, ValueRange{-1, 2}).lo, -1);
}
