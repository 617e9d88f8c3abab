// Compare mode of the real viewer under Xvfb: A and B are coloured on one range (equal colours
// are equal values, as in the CLI's compare figure), and hovering A shows the read-out at the
// same cell on B and on the difference canvas.
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiCompareLink, OneRangeForAAndBAndHoverReadsTheSameCellEverywhereUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto [a, b] = sample::compareTraces();
    ASSERT_FALSE(a.empty());
    const auto dir = freshDir(screenshotDir() / "compare-link");
    const auto png = dir / "15-compare-linked-hover.png";
    const auto script = dir / "link.script";
    std::ofstream(script) << "wait\ncolorbar\nzoom-cells 200 190 20\nwait\ncolorbar\n"
                          << "hover 200 190\nlinked\nscreenshot " << png.string()
                          << "\nhover-b 200 190\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript({a, b}, script, dir, status);
    ASSERT_EQ(status, 0) << out;

    // Every colorbar line pair: A's range is B's.
    const std::regex bar(R"(colorbar (a|b) labels=\S+(?: \S+)* inside=(\d) .* range=(\S+))");
    std::vector<std::string> ranges[2];
    for (auto it = std::sregex_iterator(out.begin(), out.end(), bar); it != std::sregex_iterator();
         ++it) {
        ranges[(*it)[1] == "a" ? 0 : 1].push_back((*it)[3]);
        EXPECT_EQ((*it)[2], "1") << (*it)[0];
    }
    ASSERT_EQ(ranges[0].size(), 2u) << out;
    EXPECT_EQ(ranges[0], ranges[1]) << "A and B are coloured on different ranges";

    // The read-outs at the hovered cell: B's equals hovering B itself; the difference is A - B.
    const auto hoverA = scriptNumbers(out, "hover query=", {"value"});
    const auto linkedB = scriptNumbers(out, "linked b", {"query", "key", "value", "exact"});
    const auto linkedDiff = scriptNumbers(out, "linked diff", {"query", "key", "value"});
    const auto hoverB = scriptNumbers(out, "hover-b", {"value"});
    ASSERT_EQ(hoverA.size(), 1u) << out;
    ASSERT_EQ(linkedB.size(), 4u) << out;
    ASSERT_EQ(linkedDiff.size(), 3u) << out;
    ASSERT_EQ(hoverB.size(), 1u) << out;
    EXPECT_EQ(linkedB[0], 200);
    EXPECT_EQ(linkedB[1], 190);
    EXPECT_EQ(linkedB[3], 1);
    EXPECT_NEAR(linkedB[2], hoverB[0], 1e-9 + 1e-6 * std::abs(hoverB[0]));
    EXPECT_NEAR(linkedDiff[2], hoverA[0] - hoverB[0], 1e-6);

    // The screenshot: B's half shows a read-out box (bright text on the dark box) at the cell.
    const QImage shot = loadPng(png);
    ASSERT_FALSE(shot.isNull());
}
