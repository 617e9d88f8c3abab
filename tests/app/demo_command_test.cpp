// `gatescope demo --headless`: the README's main job as CI runs it. The bundled FoX and
// Transformer samples trace the bundled text, the comparison and (GUI builds) the figures are
// written; the FoX sample's gates show structure (some heads local, some long-range), and past
// its 512-byte training length the RoPE Transformer falls behind FoX (the FoX paper's finding).
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/app/cli_runner.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

TEST(DemoCommand, HeadlessRunWritesTracesComparisonAndFigures) {
    test::TempDir tmp;
    auto r =
        runCli(fmt::format("demo --headless --tokens 2048 --out {}", quoted(tmp / "demo")), tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(tmp / "demo" / "fox.h5"));
    EXPECT_TRUE(std::filesystem::exists(tmp / "demo" / "transformer.h5"));
    const auto compare = nlohmann::json::parse(test::readFile(tmp / "demo" / "compare.json"));
    EXPECT_TRUE(compare["alignment"]["identical"].get<bool>());
    // Within the training length the two are close; beyond it FoX is far better.
    const auto& bins = compare["loss"]["linear_bins"];
    ASSERT_EQ(bins.size(), 2u);  // 1024-token bins over 2048 tokens
    EXPECT_LT(bins[1]["mean_delta"].get<double>(), -0.5) << bins.dump();
    // The intervention it shows: FoX without forgetting in one layer costs loss.
    const auto iv = nlohmann::json::parse(test::readFile(tmp / "demo" / "intervention.json"));
    EXPECT_EQ(iv["positions_within"], 512);
    EXPECT_GT(iv["mean_loss_delta_within"].get<double>(), 0.05) << iv.dump();
    EXPECT_GT(iv["mean_loss_delta_beyond"].get<double>(), 0.05) << iv.dump();
    EXPECT_TRUE(std::filesystem::exists(iv["trace"].get<std::string>()));
    EXPECT_NE(r.out.find("A without forgetting in layer"), std::string::npos) << r.out;
#ifdef GATESCOPE_WITH_GUI
    for (const char* figure : {"fox-grid.png", "transformer-grid.png", "fox-loss.svg"})
        EXPECT_GT(std::filesystem::file_size(tmp / "demo" / "figures" / figure), 1000u) << figure;
    EXPECT_NE(r.out.find("wrote 7 figures"), std::string::npos) << r.out;
#endif

    r = runCli(fmt::format("stats {} --json {}", quoted(tmp / "demo" / "fox.h5"),
                           quoted(tmp / "stats.json")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto stats = nlohmann::json::parse(test::readFile(tmp / "stats.json"));
    double shortest = 1e9, longest = 0;
    for (const auto& g : stats["traces"][0]["gates"]) {
        shortest = std::min(shortest, g["timescale_min"].get<double>());
        longest = std::max(longest, g["timescale_max"].get<double>());
    }
    EXPECT_LT(shortest, 4.0);   // a head that forgets within a few bytes
    EXPECT_GT(longest, 100.0);  // and one that keeps more than a hundred
}

// Over SSH without forwarding DISPLAY is unset, or left naming a server that is gone: either way
// the main command writes figures instead of aborting in Qt after the tracing.
TEST(DemoCommand, WithoutAReachableDisplayWritesFigures) {
    test::TempDir tmp;
    for (const char* env :
         {"env -u DISPLAY -u WAYLAND_DISPLAY", "env -u WAYLAND_DISPLAY DISPLAY=:987"}) {
        SCOPED_TRACE(env);
        auto r = test::runShell(fmt::format("{} {} demo --tokens 512 --out {}", env, GATESCOPE_CLI,
                                            quoted(tmp / "demo")),
                                tmp);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(r.out.find("opening the viewer"), std::string::npos) << r.out;
#ifdef GATESCOPE_WITH_GUI
        EXPECT_NE(r.out.find("no display: wrote 7 figures"), std::string::npos) << r.out;
#endif
    }
}

#ifdef GATESCOPE_WITH_GUI
// With a display (Xvfb here) the main command opens the viewer in compare mode on the two traces.
TEST(DemoCommand, WithADisplayOpensTheViewerInCompareMode) {
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) GTEST_SKIP() << "no xvfb-run";
    test::TempDir tmp;
    {
        std::ofstream script(tmp / "demo.script");
        script << "wait\ncompare-summary\nscreenshot " << (tmp / "demo.png").string() << "\nquit\n";
    }
    auto r = test::runShell(
        fmt::format("cd {0} && HOME={0} XDG_CONFIG_HOME={0} timeout 300 xvfb-run -a -s '-screen 0 "
                    "1600x1000x24' {1} demo --tokens 512 --out {2} --script {3} 2>&1",
                    quoted(tmp.path()), GATESCOPE_CLI, quoted(tmp / "demo"),
                    quoted(tmp / "demo.script")),
        tmp);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("opening the viewer on"), std::string::npos) << r.out;
    // The compare mode of the two traces of one input: aligned token for token.
    EXPECT_NE(r.out.find("script: compare identical=1 tokens-a=512 tokens-b=512"),
              std::string::npos)
        << r.out;
    EXPECT_GT(std::filesystem::file_size(tmp / "demo.png"), 10000u);
    EXPECT_FALSE(std::filesystem::exists(tmp / "demo" / "figures"));
}
#endif

TEST(DemoCommand, MissingSampleModelIsNamed) {
    test::TempDir tmp;
    auto r = runCli(fmt::format("demo --headless --models {} {} --out {}", quoted(tmp / "nope"),
                                quoted(tmp / "nope2"), quoted(tmp / "demo")),
                    tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
