// Labels of the real viewer under Xvfb: the colour bar's labels lie fully inside their panel, and
// on a log scale they state the range the colours show (the floor, not the data's 1e-38 minimum).
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiLabels, ColorBarLabelsInsideThePanelAndLogStatesTheFloorUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "labels");
    const auto script = dir / "labels.script";
    std::ofstream(script) << "wait\ncolorbar\nscale log\nfit\nwait\ncolorbar\nscreenshot "
                          << (dir / "colorbar-log.png").string()
                          << "\nzoom-cells 300 290 30\nwait\ncolorbar\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    const std::regex line(R"(colorbar a labels=(\S*(?: \S+)*?) inside=(\d) right=(\d+) )"
                          R"(panel-right=(\d+))");
    int lines = 0;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
         ++it, ++lines) {
        const std::smatch& m = *it;
        EXPECT_EQ(m[2], "1") << "a colour bar label is cut at the panel edge: " << m[0];
        EXPECT_LE(std::stoi(m[3]), std::stoi(m[4])) << m[0];
        const std::string labels = m[1];
        EXPECT_EQ(labels.find("e-38"), std::string::npos) << labels;
        if (lines > 0) {  // log scale: the bottom label is the floor the colours show
            EXPECT_NE(labels.find("<= 1e-08|log"), std::string::npos) << labels;
        }
    }
    EXPECT_EQ(lines, 3) << out;
}
