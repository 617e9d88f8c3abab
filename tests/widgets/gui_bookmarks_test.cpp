// Bookmarks and Find in the real viewer under Xvfb: bookmarks come back when the trace is opened
// again (and removals stay removed); Find and Find Next say which match of how many they are on;
// the Text dock states the cursor's prediction; the Retention dock follows the map's queries;
// the Overview takes the view's colours.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <QImage>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiBookmarks, BookmarksPersistPerTraceAndFindCountsMatchesUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty()) << "gatescope demo failed";
    const auto dir = freshDir(screenshotDir() / "bookmarks");
    auto run = [&](const std::string& name, const std::string& commands) {
        const auto script = dir / (name + ".script");
        std::ofstream(script) << "wait\n" << commands << "quit 0\n";
        int status = 0;
        const std::string out = runViewerScript(trace, script, dir, status);
        EXPECT_EQ(status, 0) << out;
        return out;
    };
    // First session: two bookmarks on layer 1 head 2.
    std::string out = run("first",
                          "layer 1\nhead 2\ncursor 7\nbookmark needle\ncursor 3\nbookmark start\n"
                          "bookmarks\n");
    EXPECT_NE(out.find("bookmarks count=2 list=needle@7:L1h2,start@3:L1h2"), std::string::npos)
        << out;
    // Second session (same settings home): both are back; remove the first.
    out = run("second", "bookmarks\nbookmark-remove 0\nbookmarks\n");
    EXPECT_NE(out.find("bookmarks count=2 list=needle@7:L1h2,start@3:L1h2"), std::string::npos)
        << out;
    EXPECT_NE(out.find("bookmarks count=1 list=start@3:L1h2"), std::string::npos) << out;
    // Third: the removal was kept too.
    out = run("third", "bookmarks\n");
    EXPECT_NE(out.find("bookmarks count=1 list=start@3:L1h2"), std::string::npos) << out;

    // Find: the sample text starts "A forgetting gate decides"; "gate" occurs more than once.
    out = run("find",
              "cursor 0\nfind gate\nfind-next gate\ncursor 2\ntoken-summary\n"
              "dock retention\nfit\nminimap\nzoom-cells 300 290 8\nretention-window\nminimap\n"
              "minimap-click 80 80\n");
    // The you-are-here box: none for the whole map; zoomed, a box around query 300 of 1418 on
    // the 96 px minimap (y about 20).
    EXPECT_NE(out.find("minimap none"), std::string::npos) << out;
    std::smatch b;
    ASSERT_TRUE(std::regex_search(
        out, b, std::regex(R"(minimap box=([\d.]+),([\d.]+),([\d.]+),([\d.]+) side=96)")))
        << out;
    EXPECT_LE(std::stod(b[2]), 300.0 / 1418 * 96 + 0.5);
    EXPECT_GE(std::stod(b[4]), 300.0 / 1418 * 96 - 0.5);
    EXPECT_LT(std::stod(b[3]) - std::stod(b[1]), 48);
    // A click on the minimap takes the view there (pixel 80 of 96: token about 1182 across and
    // down) and leaves the cursor where it was (token 2).
    const auto click =
        scriptNumbers(out, "minimap-click", {"center-key", "center-query", "cursor"});
    ASSERT_EQ(click.size(), 3u) << out;
    EXPECT_NEAR(click[0], 80.0 / 96 * 1418, 2.0);
    EXPECT_NEAR(click[1], 80.0 / 96 * 1418, 2.0);
    EXPECT_EQ(click[2], 2);
    // The Retention dock follows the map: zoomed to 8-px cells about query 300, it shows the
    // same queries, a few hundred positions rather than the whole sequence.
    std::smatch w;
    ASSERT_TRUE(std::regex_search(
        out, w,
        std::regex(
            R"(retention-window begin=([\d.]+) end=([\d.]+) follow=1 map=([\d.]+):([\d.]+))")))
        << out;
    EXPECT_LE(std::stod(w[1]), 300);
    EXPECT_GE(std::stod(w[2]), 300);
    EXPECT_LT(std::stod(w[2]) - std::stod(w[1]), 400);
    EXPECT_NEAR(std::stod(w[1]), std::max(0.0, std::stod(w[3])), 1.0);
    // The Text dock's line for the cursor: the prediction of token 3 from position 2.
    EXPECT_TRUE(std::regex_search(
        out, std::regex(R"(token-summary token 2 '.' -> next '.': loss \d+\.\d{3} nat, rank \d+, )"
                        R"(entropy \d+\.\d\d nat)")))
        << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        out, m,
        std::regex(R"(find gate -> cursor=(\d+) status='gate': match 1 of (\d+), at token (\d+))")))
        << out;
    const int n = std::stoi(m[2]);
    EXPECT_GE(n, 2);
    EXPECT_EQ(m[1], m[3]);
    EXPECT_TRUE(std::regex_search(
        out,
        std::regex("find-next gate -> cursor=\\d+ status='gate': match 2 of " + std::to_string(n))))
        << out;
}

// The Overview's small maps use the view's colormap and scale (issue 25): switching the scale
// and the colormap recolours them.
TEST(GuiBookmarks, TheOverviewHonoursTheViewsScaleUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty()) << "gatescope demo failed";
    const auto dir = freshDir(screenshotDir() / "overview-scale");
    const auto linear = dir / "linear.png", log = dir / "log.png";
    const auto script = dir / "overview.script";
    std::ofstream(script) << "wait\ndock overview\nscale linear\nwait\nscreenshot "
                          << linear.string() << "\nscale log\ncolormap magma\nwait\nscreenshot "
                          << log.string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(out, m, std::regex(R"(dock overview x=(\d+) y=(\d+) w=(\d+) h=(\d+))")))
        << out;
    const QRect dock(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]));
    const QImage a(QString::fromStdString(linear.string())),
        b(QString::fromStdString(log.string()));
    ASSERT_FALSE(a.isNull() || b.isNull());
    int changed = 0, total = 0;
    for (int y = dock.top() + 30; y < dock.bottom() - 10; y += 2)
        for (int x = dock.left() + 40; x < dock.right() - 10; x += 2) {
            ++total;
            changed += a.pixel(x, y) != b.pixel(x, y);
        }
    EXPECT_GT(changed, total / 10) << "the Overview's maps did not change colour";
}
