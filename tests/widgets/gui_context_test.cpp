// The Effective Context dock of the real viewer under Xvfb: its gate and attention horizons are
// the ones `gatescope stats --attention --json` reports for the same trace and bin width (row 0,
// the first bins), and clicking a cell shows that head with the cursor in that bin.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

std::vector<double> numbers(const std::string& list) {
    std::vector<double> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(std::stod(item));
    return out;
}

}  // namespace

TEST(GuiContext, HorizonsAreTheCliReportsAndACellGoesThereUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "context");
    std::ofstream(dir / "context.script")
        << "wait\ncontext\ncontext-click 2 5\ncontext attention\nscreenshot "
        << (dir / "context.png").string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, dir / "context.script", dir, status);
    ASSERT_EQ(status, 0) << out;  // context-click fails unless the view went to the cell

    const std::regex line(R"(context rows=(\d+) bins=(\d+) bin-width=(\d+) kind=(\w+) )"
                          R"(row0=L(\d+)H(\d+) first=(\S+))");
    std::vector<std::smatch> lines;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
         ++it)
        lines.push_back(*it);
    ASSERT_EQ(lines.size(), 2u) << out;
    EXPECT_EQ(lines[0][4], "gate");
    EXPECT_EQ(lines[1][4], "attention");
    const std::string binWidth = lines[0][3];

    const auto json = dir / "stats.json";
    int cliStatus = 0;
    const std::string cli =
        runCapture(fmt::format("'{}' stats '{}' --attention --bin-width {} --json '{}' 2>&1",
                               GATESCOPE_CLI, trace.string(), binWidth, json.string()),
                   cliStatus);
    ASSERT_EQ(cliStatus, 0) << cli;
    std::ifstream in(json);
    const auto report = nlohmann::json::parse(in);
    const auto& context = report["traces"][0]["effective_context"];
    ASSERT_EQ(context["bin_width"].get<int>(), std::stoi(binWidth));
    const auto& heads = context["heads"];
    ASSERT_EQ(heads.size(), std::stoul(lines[0][1]));
    EXPECT_EQ(heads[0]["layer"].get<int>(), std::stoi(lines[0][5]));
    EXPECT_EQ(heads[0]["head"].get<int>(), std::stoi(lines[0][6]));
    const auto gate = numbers(lines[0][7]), attention = numbers(lines[1][7]);
    ASSERT_EQ(gate.size(), 3u);
    ASSERT_EQ(attention.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
        EXPECT_NEAR(gate[b], heads[0]["gate_horizon_by_bin"][b].get<double>(), 1e-6) << b;
        EXPECT_NEAR(attention[b], heads[0]["attention_horizon_by_bin"][b].get<double>(), 1e-6) << b;
    }
}
