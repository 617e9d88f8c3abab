// `gatescope demo --headless`: the README's main job as CI runs it. The bundled FoX and
// Transformer samples trace the bundled text, the comparison and (GUI builds) the figures are
// written; the FoX sample's gates show structure (some heads local, some long-range), and past
// its 512-byte training length the RoPE Transformer falls behind FoX (the FoX paper's finding).
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
