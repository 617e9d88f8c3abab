// The dock layout across launches of the real viewer under Xvfb: open a trace, quit (the window
// saves its layout as File > Quit does), open it again; the restored layout must leave the map
// the widest thing on screen. Once without and once with a window manager (openbox, when
// installed), and once after a dock was dragged as wide as it goes.
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

struct Layout {
    double window = 0, map = 0, mapHeight = 0, sideMax = 0, showsMap = 0;
};

/// One launch: `commands`, then `layout` and a screenshot `png`; the layout line read back.
Layout launch(const std::filesystem::path& dir, const std::string& commands,
              const std::filesystem::path& png, const std::string& windowManager) {
    const auto script = dir / "layout.script";
    std::ofstream(script) << "wait\n"
                          << commands << "layout\nscreenshot " << png.string() << "\nquit 0\n";
    int status = 0;
    const std::string out =
        runViewerScript({sample::sampleTrace()}, script, dir, status, windowManager);
    EXPECT_EQ(status, 0) << out;
    Layout l;
    std::smatch m;
    if (std::regex_search(out, m,
                          std::regex(R"(layout window=(\d+)x\d+ map=(\d+)x(\d+) )"
                                     R"(side-dock-max=(\d+) shows-map=(\d))"))) {
        l = {std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), std::stod(m[5])};
    } else {
        ADD_FAILURE() << "no layout line:\n" << out;
    }
    return l;
}

void expectMapShown(const Layout& l, const std::string& when) {
    EXPECT_EQ(l.showsMap, 1) << when;
    EXPECT_GT(l.map, l.sideMax) << when << ": the map is narrower than a side dock";
    EXPECT_GT(l.map, l.window / 3) << when;
    EXPECT_GT(l.mapHeight, 200) << when;
}

/// Three launches in one settings home: default layout; relaunch (saved layout restored);
/// a dock dragged wide and View > Reset Layout; relaunch again.
void relaunchKeepsTheMap(const std::string& windowManager, const std::string& tag) {
    SKIP_WITHOUT_XVFB();
    ASSERT_FALSE(sample::sampleTrace().empty());
    const auto dir = freshDir(screenshotDir() / ("layout-" + tag));
    const Layout first = launch(dir, "", dir / "1-first.png", windowManager);
    expectMapShown(first, "first launch");
    ASSERT_TRUE(
        std::filesystem::exists(dir / ".config" / "gatescope" / "gatescope-scripted.conf") ||
        std::filesystem::exists(dir / "gatescope" / "gatescope-scripted.conf"))
        << "the layout was not saved on quit";
    const Layout second = launch(dir, "", dir / "2-relaunch.png", windowManager);
    expectMapShown(second, "second launch");
    EXPECT_NEAR(second.map, first.map, 40) << "the saved layout was not restored";
    // The text dock dragged as wide as it goes (the map keeps its minimum), then saved.
    const Layout dragged =
        launch(dir, "resize-dock text 1400\n", dir / "3-dragged.png", windowManager);
    EXPECT_GT(dragged.map, 0);
    const Layout third = launch(dir, "", dir / "4-after-drag.png", windowManager);
    expectMapShown(third, "launch after a dock was dragged wide");
    const Layout reset =
        launch(dir, "resize-dock text 1400\nreset-layout\n", dir / "5-reset.png", windowManager);
    expectMapShown(reset, "View > Reset Layout");
    const QImage shot = loadPng(dir / "2-relaunch.png");
    ASSERT_FALSE(shot.isNull());
    // The map's middle is drawn (many colours), not an empty gap between docks.
    const QRect middle(shot.width() / 2 - 60, shot.height() / 3, 120, shot.height() / 4);
    EXPECT_GT(distinctColours(shot, middle), 4u) << "no map in the middle of the window";
}

}  // namespace

TEST(GuiLayout, RelaunchKeepsTheMapWiderThanTheDocksUnderXvfb) {
    relaunchKeepsTheMap({}, "plain");
}

TEST(GuiLayout, RelaunchKeepsTheMapUnderAWindowManager) {
    if (std::system("command -v openbox > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "openbox is not installed (scripts/setup.sh installs it)";
    relaunchKeepsTheMap("openbox", "openbox");
}
