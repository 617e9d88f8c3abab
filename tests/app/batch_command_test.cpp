// `gatescope batch`: a recipe over two tiny models and two inputs produces the expected files; a
// missing checkpoint fails only its runs; an interrupted batch completes on the next invocation
// without redoing finished runs; shards (--shard i/K, then --join) give the same summary; the
// HDF5 index reads the runs' per-token losses. (mpirun: batch_parallel_test.cpp.)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "batch_test_recipe.h"
#include "cli_runner.h"
#include "data/trace/trace_reader.h"
#include "tests/data/raw_reads.h"

namespace gatescope {
namespace {

using test::count;
using test::quoted;
using test::runCli;
using test::summary;
using test::writeRecipe;

TEST(BatchCommand, RunsEveryEntryAndFailsOnlyTheBadOne) {
    test::TempDir tmp;
    const auto recipe = writeRecipe(tmp);
    auto r = runCli("batch " + quoted(recipe), tmp);
    EXPECT_EQ(r.exitCode, 1) << r.err;  // the missing checkpoint's runs failed
    const auto rows = summary(tmp);
    // doc0 ~360 bytes (1 chunk), doc1 ~1060 bytes (3 chunks of 512): 4 runs per good model.
    ASSERT_EQ(rows.size(), 4u + 4u + 2u) << rows.dump(1);
    EXPECT_EQ(count(rows, "done"), 8);
    EXPECT_EQ(count(rows, "failed"), 2);
    for (const auto& row : rows) {
        if (row["state"] == "failed") {
            EXPECT_NE(row["error"].get<std::string>().find("no-such-model"), std::string::npos);
            continue;
        }
        EXPECT_LE(row["tokens"].get<int64_t>(), 512);
        EXPECT_TRUE(std::filesystem::exists(tmp / "out" / row["trace"].get<std::string>()));
    }
    for (const char* f : {"summary.csv", "manifest.json", "index.h5", "analyses/fox/stats.json",
                          "analyses/fox/attention.csv", "analyses/transformer/loss_exp_bins.csv"})
        EXPECT_TRUE(std::filesystem::exists(tmp / "out" / f)) << f;

    // The index's row r is run r's per-token loss, through the virtual dataset.
    const auto all = test::readFloatMatrix(tmp / "out" / "index.h5", "per_token_loss");
    ASSERT_EQ(all.rows, 8u);
    size_t row = 0;
    for (const auto& s : rows) {
        if (s["state"] != "done") continue;
        auto reader = data::TraceReader::open(tmp / "out" / s["trace"].get<std::string>()).value();
        const auto loss = reader->perToken().value().loss;
        for (std::size_t i = 0; i + 1 < loss.size(); ++i)
            ASSERT_FLOAT_EQ(all.at(row, i), loss[i]) << s["run"];
        ++row;
    }
}

TEST(BatchCommand, InterruptedBatchResumesWithoutRedoingFinishedRuns) {
    test::TempDir tmp;
    const auto recipe = writeRecipe(tmp, 3, false);
    const pid_t child = fork();
    if (child == 0) {
        freopen("/dev/null", "w", stderr);
        execl(GATESCOPE_CLI, GATESCOPE_CLI, "batch", recipe.c_str(), nullptr);
        _exit(127);
    }
    const auto status = tmp / "out" / "status";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    auto finished = [&] {
        std::error_code ec;
        int n = 0;
        for (const auto& e : std::filesystem::directory_iterator(status, ec))
            n += e.path().extension() == ".json" ? 1 : 0;
        return n;
    };
    while (finished() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(child, SIGINT);
    int code = 0;
    waitpid(child, &code, 0);
    const int doneBefore = finished();
    ASSERT_GE(doneBefore, 2);
    if (WIFEXITED(code) && WEXITSTATUS(code) == 0)
        GTEST_SKIP() << "the batch finished before the interrupt arrived";
    EXPECT_EQ(WEXITSTATUS(code), 130);
    std::map<std::string, std::filesystem::file_time_type> stamps;
    for (const auto& e : std::filesystem::directory_iterator(status))
        stamps[e.path().string()] = std::filesystem::last_write_time(e.path());

    auto r = runCli("batch " + quoted(recipe), tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find(fmt::format("skipped {}", doneBefore)), std::string::npos) << r.err;
    for (const auto& [path, stamp] : stamps)
        EXPECT_EQ(std::filesystem::last_write_time(path), stamp) << path << " was redone";
    EXPECT_EQ(count(summary(tmp), "done"), static_cast<int>(summary(tmp).size()));
}

// A figure the batch cannot draw is found when the recipe is read, not after every run was
// traced (it used to end the batch as an internal error, exit 70, once the tracing was done).
TEST(BatchCommand, BadFigureIsRefusedBeforeAnyRun) {
    test::TempDir tmp;
    const nlohmann::json figures = {{{"figure", "map"}, {"range", "512:100"}}};
    const auto recipe = writeRecipe(tmp, 1, false, figures);
    auto r = runCli("batch " + quoted(recipe), tmp);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("recipe.json: figures.range:"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "traces")) << "a run was traced";
}

TEST(BatchCommand, ShardsThenJoinEqualOneProcess) {
    test::TempDir tmp;
    const nlohmann::json figures = {
        {{"figure", "loss"}},
        {{"figure", "map"}, {"layer", 0}, {"head", 1}, {"range", "0:64"}, {"format", "png"}}};
    const auto recipe = writeRecipe(tmp, 2, false, figures);
    for (const char* shard : {"0/2", "1/2"}) {
        auto r = runCli(fmt::format("batch {} --shard {}", quoted(recipe), shard), tmp);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_NE(r.err.find("--join"), std::string::npos) << r.err;
    }
    auto r = runCli(fmt::format("batch {} --join", quoted(recipe)), tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto rows = summary(tmp);
    EXPECT_EQ(count(rows, "done"), 8);
#ifdef GATESCOPE_WITH_GUI
    // The join renders the recipe's figures for every run: an SVG loss curve and a PNG map.
    for (const auto& row : rows) {
        const auto stem = std::filesystem::path(row["trace"].get<std::string>()).stem().string();
        const auto dir = tmp / "out" / "figures" / row["checkpoint"].get<std::string>();
        const auto svg = test::readFile(dir / (stem + ".loss-L0H0.svg"));
        EXPECT_NE(svg.find("<svg"), std::string::npos) << row["run"];
        const auto png = test::readFile(dir / (stem + ".map-L0H1.png"));
        EXPECT_EQ(png.substr(1, 3), "PNG") << row["run"];
    }
#endif
}

TEST(BatchCommand, BadRecipeIsAClearError) {
    test::TempDir tmp;
    std::ofstream(tmp / "r.json") << R"({"checkpoints": ["x"], "inputs": ["y"]})";
    auto r = runCli("batch " + quoted(tmp / "r.json"), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("r.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("output"), std::string::npos) << r.err;
}

TEST(BatchCommand, TomlRecipeRunsLikeItsJsonTwin) {
    test::TempDir tmp;
    writeRecipe(tmp, 2, true);  // the models and documents; the recipe again, in TOML:
    std::ofstream(tmp / "recipe.toml") << R"(# checkpoints x inputs, as in docs/batch.md
output = "out"
inputs = ["docs"]
max_tokens = 512
checkpoints = ["fox", { name = "transformer", path = "tfm" }, "no-such-model"]

[trace]
threads = 1
pyramid_side = 256

[analyses]
attention = true
bin_width = 64
)";
    auto r = runCli("batch " + quoted(tmp / "recipe.toml"), tmp);
    if (r.err.find("JSON recipes only") != std::string::npos)
        GTEST_SKIP() << "built without toml++";
    EXPECT_EQ(r.exitCode, 1) << r.err;  // the missing checkpoint fails its runs only
    const auto rows = summary(tmp);
    EXPECT_EQ(count(rows, "done"), 8);
    EXPECT_EQ(count(rows, "failed"), 2);

    std::ofstream(tmp / "bad.toml") << "output = \"out\"\ncheckpoints = [\"fox\"\n";
    r = runCli("batch " + quoted(tmp / "bad.toml"), tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("bad.toml"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
