// `gatescope batch` across processes (no GPU needed): `mpirun -n 3` shares one queue and gives the
// same traces as one process; a rank killed mid-run leaves its run to the next launch, which
// finishes the batch without redoing finished runs; recipe keys for GPUs are checked.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "batch_test_recipe.h"
#include "cli_runner.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

using test::count;
using test::quoted;
using test::readFile;
using test::runCli;
using test::summary;
using test::writeRecipe;

bool haveMpirun() {
    return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}

std::string mpirun(int ranks, const std::filesystem::path& recipe,
                   const std::filesystem::path& log) {
    return fmt::format(
        "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --allow-run-as-root "
        "--oversubscribe -n {} {} batch {} > {} 2>&1",
        ranks, GATESCOPE_CLI, quoted(recipe), quoted(log));
}

std::vector<float> losses(const std::filesystem::path& trace) {
    auto reader = data::TraceReader::open(trace);
    EXPECT_TRUE(reader) << trace;
    return reader ? (*reader)->perToken().value().loss : std::vector<float>{};
}

std::vector<std::filesystem::path> filesIn(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file()) out.push_back(e.path());
    return out;
}

TEST(BatchParallel, MpirunRanksShareOneQueueAndEqualOneProcess) {
    if (!haveMpirun()) GTEST_SKIP() << "no mpirun";
    test::TempDir parallel, single;
    const auto recipe = writeRecipe(parallel, 2, false);
    const int code = std::system(mpirun(3, recipe, parallel / "mpi.log").c_str());
    const auto log = readFile(parallel / "mpi.log");
    ASSERT_EQ(WEXITSTATUS(code), 0) << log;
    for (int rank = 0; rank < 3; ++rank)
        EXPECT_NE(log.find(fmt::format("rank {}/3", rank)), std::string::npos) << log;
    EXPECT_NE(log.find("shared queue of mpirun (Open MPI)"), std::string::npos) << log;
    auto r = runCli("batch " + quoted(writeRecipe(single, 2, false)), single);
    ASSERT_EQ(r.exitCode, 0) << r.err;

    // Every run claimed once, in one launch's folder, and done exactly once.
    const auto claims = filesIn(parallel / "out" / "claims");
    const auto rows = summary(parallel), one = summary(single);
    EXPECT_EQ(claims.size(), rows.size());
    ASSERT_EQ(rows.size(), one.size());
    EXPECT_EQ(count(rows, "done"), 8);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i]["run"], one[i]["run"]);
        EXPECT_EQ(rows[i]["device"], "cpu");
        EXPECT_NE(rows[i]["host"].get<std::string>().find(" rank "), std::string::npos);
        const auto trace = rows[i]["trace"].get<std::string>();
        // Same model, same tokens, one thread: the same bits whichever rank ran it (the last
        // position's loss is NaN, which == would call different).
        const auto a = losses(parallel / "out" / trace), b = losses(single / "out" / trace);
        ASSERT_EQ(a.size(), b.size()) << trace;
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << trace;
        EXPECT_EQ(rows[i]["mean_loss"], one[i]["mean_loss"]) << trace;
    }
}

TEST(BatchParallel, AKilledRankIsPickedUpOnResume) {
    if (!haveMpirun()) GTEST_SKIP() << "no mpirun";
    test::TempDir tmp;
    const auto recipe = writeRecipe(tmp, 4, false);  // 26 runs
    const pid_t launcher = fork();
    if (launcher == 0) {
        execl("/bin/sh", "sh", "-c", mpirun(2, recipe, tmp / "first.log").c_str(), nullptr);
        _exit(127);
    }
    // Wait for a run that a rank has claimed and not finished, then kill that rank outright.
    std::string killedRun;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (killedRun.empty() && std::chrono::steady_clock::now() < deadline) {
        for (const auto& claim : filesIn(tmp / "out" / "claims")) {
            const auto stem = claim.stem().string();
            if (std::filesystem::exists(tmp / "out" / "status" / (stem + ".json"))) continue;
            const auto owner = nlohmann::json::parse(readFile(claim), nullptr, false);
            if (!owner.is_object() || !owner.contains("pid")) continue;  // being written
            if (owner["rank"] != 1) continue;
            kill(owner["pid"].get<pid_t>(), SIGKILL);
            killedRun = stem;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int status = 0;
    waitpid(launcher, &status, 0);
    if (killedRun.empty()) GTEST_SKIP() << "the batch ended before a rank could be killed";
    EXPECT_NE(WEXITSTATUS(status), 0) << readFile(tmp / "first.log");
    EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "status" / (killedRun + ".json")))
        << killedRun;
    std::map<std::string, std::filesystem::file_time_type> finished;
    for (const auto& f : filesIn(tmp / "out" / "status"))
        finished[f.string()] = std::filesystem::last_write_time(f);

    // The next launch (another job id: its own claims) takes the killed rank's run and the rest.
    const int code = std::system(mpirun(2, recipe, tmp / "second.log").c_str());
    const auto log = readFile(tmp / "second.log");
    ASSERT_EQ(WEXITSTATUS(code), 0) << log;
    const auto rows = summary(tmp);
    EXPECT_EQ(count(rows, "done"), static_cast<int>(rows.size())) << rows.dump(1);
    EXPECT_TRUE(std::filesystem::exists(tmp / "out" / "status" / (killedRun + ".json")));
    for (const auto& [path, stamp] : finished)
        EXPECT_EQ(std::filesystem::last_write_time(path), stamp) << path << " was redone";
    EXPECT_NE(log.find(fmt::format("skipped")), std::string::npos) << log;
}

TEST(BatchParallel, GpuKeysOfTheRecipeAreChecked) {
    test::TempDir tmp;
    auto recipe = nlohmann::json::parse(readFile(writeRecipe(tmp, 1, false)));
    recipe["devices"] = {0, 1};  // with trace.device "cpu" (the default): contradictory
    std::ofstream(tmp / "gpus.json") << recipe.dump();
    auto r = runCli("batch " + quoted(tmp / "gpus.json"), tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("gpus.json: devices:"), std::string::npos) << r.err;

    recipe.erase("devices");
    recipe["trace"]["devcie"] = "cuda";  // a misspelt key is an error, not silence
    std::ofstream(tmp / "typo.json") << recipe.dump();
    r = runCli("batch " + quoted(tmp / "typo.json"), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("trace.devcie: unknown key"), std::string::npos) << r.err;

    // --device cuda:7 where no such GPU is: one clear error before any run starts.
    r = runCli("batch " + quoted(tmp / "recipe.json") + " --device cuda:7", tmp);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("cuda:7"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "status"));
}

}  // namespace
}  // namespace gatescope
