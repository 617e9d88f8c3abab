// The Gate Events dock of the real viewer under Xvfb: it lists what `gatescope stats
// --gate-events` finds (the same total at the same threshold), strongest first; a search narrows
// it to events whose token or context holds the text; clicking a row shows that layer and head
// with the cursor on the event's token. (A trace without gates: GuiMessages.)
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiGateEvents, TheDockListsSearchesAndGoesToEventsUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "gate-events");
    std::ofstream(dir / "events.script")
        << "wait\ngate-events\ngate-events the\ngate-events-click 1\nscreenshot "
        << (dir / "gate-events.png").string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, dir / "events.script", dir, status);
    ASSERT_EQ(status, 0) << out;

    // What the CLI finds at the dock's default threshold, 0.5.
    int cliStatus = 0;
    const std::string stats =
        runCapture(fmt::format("'{}' stats '{}' --gate-events --event-retention 0.5 2>&1",
                               GATESCOPE_CLI, trace.string()),
                   cliStatus);
    ASSERT_EQ(cliStatus, 0) << stats;
    std::smatch cli;
    ASSERT_TRUE(
        std::regex_search(stats, cli, std::regex(R"(gate events \(retention below 0.5\): (\d+))")))
        << stats;

    const std::regex line(R"(gate-events total=(\d+) kept=(\d+) shown=(\d+) first=(\S+))");
    std::vector<std::smatch> lines;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
         ++it)
        lines.push_back(*it);
    ASSERT_EQ(lines.size(), 2u) << out;
    const long total = std::stol(lines[0][1]), kept = std::stol(lines[0][2]);
    EXPECT_EQ(total, std::stol(cli[1]));
    EXPECT_GT(total, 0);
    EXPECT_EQ(std::stol(lines[0][3]), kept);  // no search: every kept event
    // Strongest first: the listed retentions do not rise.
    std::vector<double> retentions;
    const std::string first = lines[0][4];
    const std::regex retention(R"(:([0-9.e-]+)(?:,|$))");
    for (auto it = std::sregex_iterator(first.begin(), first.end(), retention);
         it != std::sregex_iterator(); ++it)
        retentions.push_back(std::stod((*it)[1]));
    ASSERT_EQ(retentions.size(), 3u) << first;
    EXPECT_LE(retentions[0], retentions[1]);
    EXPECT_LE(retentions[1], retentions[2]);
    EXPECT_LT(retentions[0], 0.5);
    // A search narrows the list (the sample text has "the" in some contexts, not in all).
    const long shown = std::stol(lines[1][3]);
    EXPECT_GT(shown, 0);
    EXPECT_LT(shown, kept);
    // The click went to the event (the command fails otherwise): say where.
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(gate-events-click row=1 event=\d+:\d+:\d+ )")))
        << out;
}
