// `gatescope train` end to end through the real executable: a short run writes a checkpoint that
// `trace` opens; the pass-key needle grid runs on it; bad arguments exit non-zero and say why.
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/app/cli_runner.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

void writeCorpus(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::ofstream out(dir / "lines.py");
    for (int i = 0; i < 300; ++i)
        out << "def f" << i << "(x):\n    return x * " << i % 7 << "\n";
}

TEST(TrainCommand, WritesACheckpointThatTraceAndNiahOpen) {
    test::TempDir tmp;
    writeCorpus(tmp / "corpus");
    auto r = runCli(fmt::format("train --arch gsa --corpus {} --out {} --layers 1 --hidden 32 "
                                "--heads 2 --steps 4 --batch 2 --seq-len 64 --warmup 1 "
                                "--eval-every 2 --recall 0.5 --assoc 0.25 --threads 2",
                                quoted(tmp / "corpus"), quoted(tmp / "model")),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("trained gsa"), std::string::npos) << r.out;
    const auto record = nlohmann::json::parse(test::readFile(tmp / "model" / "train.json"));
    EXPECT_EQ(record["step"], 4);
    EXPECT_EQ(record["held_out"]["file"], "last 5% of the corpus");
    EXPECT_NE(record["command"].get<std::string>().find("--arch gsa"), std::string::npos);
    const auto config = nlohmann::json::parse(test::readFile(tmp / "model" / "config.json"));
    EXPECT_EQ(config["model_type"], "gsa");
    EXPECT_EQ(config["gatescope_tokenizer"], "byte");

    r = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(tmp / "model"),
                           quoted(tmp / "corpus" / "lines.py"), quoted(tmp / "t.h5")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    r = runCli(fmt::format("niah --model {} --haystack {} --passkey 71432 --lengths 200 "
                           "--depths 0,100 --out {} --no-pyramids",
                           quoted(tmp / "model"), quoted(tmp / "corpus" / "lines.py"),
                           quoted(tmp / "niah")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto grid = nlohmann::json::parse(test::readFile(tmp / "niah" / "grid.json"));
    EXPECT_EQ(grid["answer"], " 71432.");
    EXPECT_EQ(grid["cells"].size(), 2u);
}

TEST(TrainCommand, BadArgumentsExitNonZeroSayingWhy) {
    test::TempDir tmp;
    writeCorpus(tmp / "corpus");
    auto r = runCli(fmt::format("train --arch mamba --corpus {} --out {}", quoted(tmp / "corpus"),
                                quoted(tmp / "model")),
                    tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("unknown architecture 'mamba'"), std::string::npos) << r.err;
    r = runCli(
        fmt::format("train --corpus {} --out {}", quoted(tmp / "nothing"), quoted(tmp / "model")),
        tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("nothing"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "model" / "model.safetensors"));
}

}  // namespace
}  // namespace gatescope
