// `gatescope export --figure context|series`: the effective-context map and the checkpoint
// series drawn from stats reports, through the real CLI, as SVG whose text says what is drawn;
// and the usage errors of both kinds.
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"

// Figures need Qt: headless builds (GATESCOPE_GUI=OFF) have no export.
#ifdef GATESCOPE_WITH_GUI
namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

const std::filesystem::path kFigureFox =
    std::filesystem::path(GATESCOPE_SOURCE_DIR) / "resources" / "models" / "fox";
const std::filesystem::path kText =
    std::filesystem::path(GATESCOPE_SOURCE_DIR) / "resources" / "samples" / "forgetting.txt";

/// A trace of the bundled FoX sample over 300 bytes, its checkpoint seen as folder `name`.
std::filesystem::path trace(const test::TempDir& tmp, const std::string& name) {
    std::filesystem::create_directory_symlink(kFigureFox, tmp / name);
    const auto out = tmp / (name + ".h5");
    auto r = runCli(fmt::format("trace --model {} --input {} --range 0:300 --out {}",
                                quoted(tmp / name), quoted(kText), quoted(out)),
                    tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return out;
}

TEST(AnalysisFigures, ContextMapNamesEveryHeadAndBothHorizons) {
    test::TempDir tmp;
    const auto t = trace(tmp, "fox");
    auto r = runCli(fmt::format("export {} --figure context --attention --mass-share 0.75 "
                                "--bin-width 32 --out {}",
                                quoted(t), quoted(tmp / "context.svg")),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto svg = test::readFile(tmp / "context.svg");
    for (const char* text : {"L0 H0", "L3 H3", "gate horizon (retention &gt;= 0.5)",
                             "attention horizon (75% of the mass)", "bins of 32", "300 tokens"})
        EXPECT_NE(svg.find(text), std::string::npos) << text;
    r = runCli(
        fmt::format("export {} --figure context --out {}", quoted(t), quoted(tmp / "gates.png")),
        tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_GT(std::filesystem::file_size(tmp / "gates.png"), 1000u);
}

TEST(AnalysisFigures, SeriesAgainstTheStepsInTheCheckpointNames) {
    test::TempDir tmp;
    const auto late = trace(tmp, "checkpoint-3000"), early = trace(tmp, "checkpoint-500");
    auto r = runCli(fmt::format("export {} {} --figure series --out {}", quoted(late),
                                quoted(early), quoted(tmp / "series.svg")),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("steps 500 to 3000"), std::string::npos) << r.out;
    const auto svg = test::readFile(tmp / "series.svg");
    for (const char* text :
         {"mean loss (nats)", "gate timescale, median (tokens)", "training step", "3000"})
        EXPECT_NE(svg.find(text), std::string::npos) << text;
    // Without attention statistics there is no sink mass panel.
    EXPECT_EQ(svg.find("sink mass"), std::string::npos);
}

TEST(AnalysisFigures, UsageErrors) {
    test::TempDir tmp;
    const auto a = trace(tmp, "a");
    for (const auto& args :
         {fmt::format("export {} {} --figure context --out {}", quoted(a), quoted(a),
                      quoted(tmp / "x.svg")),
          fmt::format("export {} --figure series --out {}", quoted(a), quoted(tmp / "x.svg")),
          fmt::format("export {} {} --figure map --out {}", quoted(a), quoted(a),
                      quoted(tmp / "x.svg")),
          fmt::format("export {} {} --figure series --steps 1,2,3 --out {}", quoted(a), quoted(a),
                      quoted(tmp / "x.svg"))}) {
        auto r = runCli(args, tmp);
        EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
        EXPECT_FALSE(std::filesystem::exists(tmp / "x.svg")) << args;
    }
}

}  // namespace
}  // namespace gatescope
#endif
