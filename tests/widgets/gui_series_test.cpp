// The Checkpoint Series dock of the real viewer under Xvfb (`gatescope open --series A B C`): one
// row per checkpoint with the step and mean loss `gatescope stats --series` prints for the same
// traces, and clicking a row opens that row's trace.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

TEST(GuiSeries, RowsAreTheCliSeriesAndOpenTheirTracesUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto dir = freshDir(screenshotDir() / "series");
    // Three "checkpoints": random FoX models of seeds 1-3 on the same 200 tokens.
    std::vector<std::filesystem::path> traces;
    std::string paths;
    for (int seed = 1; seed <= 3; ++seed) {
        core::RandomFoxSpec spec;
        spec.layers = 2, spec.hiddenSize = 32, spec.heads = 2, spec.seed = seed;
        traces.push_back(dir / fmt::format("ckpt-{}.h5", seed));
        ASSERT_TRUE(
            sample::traceRandomFox(spec, sample::sampleText(), traces.back(), "--range 0:200"));
        paths += " '" + traces.back().string() + "'";
    }
    std::ofstream(dir / "series.script")
        << "wait\nseries\nseries-click 0\nseries attention\nscreenshot "
        << (dir / "series.png").string() << "\nquit 0\n";
    std::vector<std::filesystem::path> args = {"--series"};  // a flag among the paths
    args.insert(args.end(), traces.begin(), traces.end());
    int status = 0;
    const std::string out = runViewerScript(args, dir / "series.script", dir, status);
    ASSERT_EQ(status, 0) << out;

    int cliStatus = 0;
    const std::string cli =
        runCapture(fmt::format("'{}' stats --series{} 2>&1", GATESCOPE_CLI, paths), cliStatus);
    ASSERT_EQ(cliStatus, 0) << cli;
    // The CLI's rows: "  STEP LOSS ... PATH", in step order.
    std::vector<std::pair<std::string, double>> rows;
    const std::regex row(R"(\n +(\d+) +([0-9.]+) .*ckpt-\d\.h5)");
    for (auto it = std::sregex_iterator(cli.begin(), cli.end(), row); it != std::sregex_iterator();
         ++it)
        rows.emplace_back((*it)[1], std::stod((*it)[2]));
    ASSERT_EQ(rows.size(), 3u) << cli;

    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        out, m,
        std::regex(R"(series points=3 steps=(\d+),(\d+),(\d+) mean-loss=([0-9.]+),)"
                   R"(([0-9.]+),([0-9.]+))")))
        << out;
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(m[1 + i], rows[i].first);
        EXPECT_NEAR(std::stod(m[4 + i]), rows[i].second, 1e-4) << "row " << i;
    }
    // Without attention statistics the sink mass is not there ("nan"); the dock's button
    // computes it (a share of attention mass, in [0, 1]).
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(series points=3 .* sink-mass=(\S+))")))
        << out;
    EXPECT_EQ(m[1], "nan,nan,nan");
    std::smatch with;
    ASSERT_TRUE(std::regex_search(
        out, with, std::regex(R"(series points=3 .* sink-mass=([0-9.]+),([0-9.]+),([0-9.]+)\n)")))
        << out;
    for (int i = 1; i <= 3; ++i) {
        EXPECT_GT(std::stod(with[i]), 0.0);
        EXPECT_LE(std::stod(with[i]), 1.0);
    }
    // The click opened the first row's trace (the command fails otherwise).
    EXPECT_TRUE(
        std::regex_search(out, std::regex(R"(series-click row=0 step=\d+ opened=\S+ckpt-)")))
        << out;
}
