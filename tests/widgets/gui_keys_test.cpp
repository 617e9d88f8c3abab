// Keyboard navigation of the real viewer under Xvfb: key presses on the focused map move the
// cursor, page and zoom; Go to Position leaves little of the screen masked; Help > Keyboard
// Shortcuts lists the keys.
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiKeys, ArrowsPagesAndZoomOnTheMapAndAHelpMenuUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "keys");
    const auto png = dir / "18-goto-keys.png";
    const auto script = dir / "keys.script";
    std::ofstream(script) << "wait\nhelp\ngoto 700\nkey down\nkey down shift\nkey up\n"
                          << "key plus\nkey minus\nkey pagedown\nkey home\nwait\nscreenshot "
                          << png.string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    auto keyLine = [&](const std::string& name, size_t nth) {
        std::vector<double> v;
        size_t at = 0;
        for (size_t i = 0; i <= nth; ++i) {
            at = out.find("script: key " + name + " cursor=", at);
            if (at == std::string::npos) return v;
            if (i < nth) ++at;
        }
        return scriptNumbers(out.substr(at), "key " + name,
                             {"cursor", "tpp", "diagonal-on-screen"});
    };
    // Go to 700: the past fills the screen (not centred: half would be the masked future).
    const auto go = scriptNumbers(out, "goto 700", {"cursor", "masked"});
    ASSERT_EQ(go.size(), 2u) << out;
    EXPECT_EQ(go[0], 700);
    EXPECT_LT(go[1], 0.2) << "Go to Position leaves most of the screen masked";
    const auto down = keyLine("down", 0), down16 = keyLine("down", 1), up = keyLine("up", 0);
    ASSERT_EQ(down.size(), 3u) << out;
    EXPECT_EQ(down[0], 701);
    EXPECT_EQ(down16[0], 717);
    EXPECT_EQ(up[0], 716);
    EXPECT_EQ(up[2], 1);
    const auto plus = keyLine("plus", 0), minus = keyLine("minus", 0);
    ASSERT_EQ(plus.size(), 3u) << out;
    EXPECT_NEAR(plus[1], up[1] / 1.25, 1e-4 * up[1]) << "+ did not zoom in";
    EXPECT_NEAR(minus[1], up[1], 1e-4 * up[1]) << "- did not zoom back out";
    const auto page = keyLine("pagedown", 0);
    ASSERT_EQ(page.size(), 3u) << out;
    EXPECT_GT(page[0], 716 + 10) << "Page Down moved less than a screen of rows";
    EXPECT_EQ(page[2], 1);
    EXPECT_EQ(keyLine("home", 0)[0], 0);
    // Help > Keyboard Shortcuts lists the map's keys.
    for (const char* row : {"help Left / Up : cursor", "help Page Up / Page Down : ",
                            "help + / - : zoom", "help Home / End : "})
        EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
}
