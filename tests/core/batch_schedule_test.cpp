// Multi-process batches without a GPU: which rank and GPU a process takes from the launcher's
// variables, the GPU assignment rules, the cost order and the static split, and the claims that
// make one queue of a launch's processes.
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/batch/batch_schedule.h"
#include "core/batch/launch_environment.h"

namespace gatescope::core {
namespace {

EnvLookup envOf(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

TEST(LaunchEnvironment, OpenMpiRanksLocalRankAndJobId) {
    const auto env = readLaunchEnvironment(envOf({{"OMPI_COMM_WORLD_RANK", "5"},
                                                  {"OMPI_COMM_WORLD_SIZE", "8"},
                                                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                  {"OMPI_MCA_ess_base_jobid", "788332545"},
                                                  {"SLURM_PROCID", "0"},
                                                  {"SLURM_NTASKS", "1"}}));
    EXPECT_EQ(env.launcher, "mpirun (Open MPI)");
    EXPECT_EQ(env.rank, 5);
    EXPECT_EQ(env.size, 8);
    EXPECT_EQ(env.localRank, 1);
    EXPECT_EQ(env.launchId, "788332545");
    // Open MPI 5 names the job through PMIx only.
    const auto pmix = readLaunchEnvironment(envOf({{"OMPI_COMM_WORLD_RANK", "0"},
                                                   {"OMPI_COMM_WORLD_SIZE", "2"},
                                                   {"PMIX_NAMESPACE", "prterun-x-1@1"}}));
    EXPECT_EQ(pmix.launchId, "prterun-x-1@1");
    EXPECT_EQ(pmix.localRank, 0);
}

TEST(LaunchEnvironment, SlurmStepAndMpichHydra) {
    const auto slurm = readLaunchEnvironment(envOf({{"SLURM_PROCID", "3"},
                                                    {"SLURM_NTASKS", "4"},
                                                    {"SLURM_LOCALID", "3"},
                                                    {"SLURM_JOB_ID", "991"},
                                                    {"SLURM_STEP_ID", "0"}}));
    EXPECT_EQ(slurm.launcher, "srun (Slurm)");
    EXPECT_EQ(slurm.rank, 3);
    EXPECT_EQ(slurm.localRank, 3);
    EXPECT_EQ(slurm.launchId, "991.0");
    const auto hydra = readLaunchEnvironment(envOf({{"PMI_RANK", "1"},
                                                    {"PMI_SIZE", "2"},
                                                    {"MPI_LOCALRANKID", "1"},
                                                    {"PMI_KVSNAME", "kvs_77_0"}}));
    EXPECT_EQ(hydra.launcher, "mpiexec (PMI)");
    EXPECT_EQ(hydra.localRank, 1);
    EXPECT_EQ(hydra.launchId, "kvs_77_0");
}

TEST(LaunchEnvironment, NoLauncherOrMalformedValuesIsOneProcess) {
    for (const auto& vars : std::vector<std::map<std::string, std::string>>{
             {},
             {{"OMPI_COMM_WORLD_RANK", "x"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
             {{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
             {{"SLURM_PROCID", "-1"}, {"SLURM_NTASKS", "2"}},
             {{"PMI_RANK", "0"}, {"PMI_SIZE", "0"}}}) {
        const auto env = readLaunchEnvironment(envOf(vars));
        EXPECT_EQ(env.size, 1);
        EXPECT_EQ(env.rank, 0);
        EXPECT_EQ(env.launcher, "");
    }
}

TEST(AssignDevice, LocalRankPicksAmongVisibleGpus) {
    // Four ranks on a host with two GPUs: 0 and 2 on cuda:0, 1 and 3 on cuda:1.
    for (int rank = 0; rank < 4; ++rank)
        EXPECT_EQ(assignDevice("cuda", {}, rank, 2).value(), fmt::format("cuda:{}", rank % 2));
    // A launcher that narrowed CUDA_VISIBLE_DEVICES to one GPU per rank: each sees cuda:0.
    EXPECT_EQ(assignDevice("cuda", {}, 3, 1).value(), "cuda:0");
    // The recipe's devices list: ranks cycle through it.
    EXPECT_EQ(assignDevice("cuda", {2, 3}, 0, 4).value(), "cuda:2");
    EXPECT_EQ(assignDevice("cuda", {2, 3}, 1, 4).value(), "cuda:3");
    EXPECT_EQ(assignDevice("cuda", {2, 3}, 2, 4).value(), "cuda:2");
    // Explicit choices and the CPU are kept; no GPU: "cuda" fails later with checkDevice's words.
    EXPECT_EQ(assignDevice("cuda:1", {}, 0, 2).value(), "cuda:1");
    EXPECT_EQ(assignDevice("cpu", {}, 5, 2).value(), "cpu");
    EXPECT_EQ(assignDevice("cuda", {}, 1, 0).value(), "cuda");
}

TEST(AssignDevice, ListedGpuThatIsNotVisibleOrCpuWithDevicesIsAnError) {
    auto missing = assignDevice("cuda", {0, 4}, 0, 2);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().object, "devices");
    EXPECT_NE(missing.error().message.find("GPU 4"), std::string::npos) << missing.error().message;
    auto cpu = assignDevice("cpu", {0}, 0, 2);
    ASSERT_FALSE(cpu);
    EXPECT_EQ(cpu.error().object, "devices");
}

std::vector<BatchRun> planOfLengths(const std::vector<int64_t>& tokens) {
    std::vector<BatchRun> plan;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        BatchRun run;
        run.index = static_cast<int>(i);
        run.id = fmt::format("model/doc{}#0", i);
        run.input.begin = 100;
        run.input.end = 100 + tokens[i];
        plan.push_back(run);
    }
    return plan;
}

TEST(BatchSchedule, CostliestFirstAndUnplannableLast) {
    auto plan = planOfLengths({1024, 65536, 4096, 1024, 16384});
    plan[2].planError = Error{ErrorKind::Missing, "no such model", {}, {}};
    EXPECT_EQ(costliestFirst(plan), (std::vector<int>{1, 4, 0, 3, 2}));
    EXPECT_GT(runCost(plan[1]), 64 * runCost(plan[0]));  // attention's N^2 shows
}

TEST(BatchSchedule, StaticSplitIsBalancedByCostNotByIndex) {
    // One 64k run and many short ones: by index (i % 2) shard 0 would get the 64k run and half the
    // short ones; by cost it gets the 64k run alone.
    std::vector<int64_t> lengths = {65536};
    for (int i = 0; i < 40; ++i)
        lengths.push_back(1024 + 512 * (i % 7));
    const auto plan = planOfLengths(lengths);
    const auto shardOf = balancedShards(plan, 2);
    std::vector<double> load(2, 0);
    for (std::size_t i = 0; i < plan.size(); ++i)
        load[shardOf[i]] += runCost(plan[i]);
    const double total = load[0] + load[1], biggest = runCost(plan[0]);
    // The longest-processing-time rule: the heavier shard carries at most max(the biggest run,
    // an even half plus one run's share).
    EXPECT_LE(std::max(load[0], load[1]), std::max(biggest, total / 2 + runCost(plan[1])));
    EXPECT_EQ(std::count(shardOf.begin(), shardOf.end(), shardOf[0]), 1);
    EXPECT_EQ(balancedShards(plan, 2), shardOf);  // the same plan, the same split
    // Every run in exactly one shard, for any count.
    for (int count : {1, 3, 7, 50}) {
        const auto split = balancedShards(plan, count);
        for (int s : split)
            EXPECT_TRUE(s >= 0 && s < count);
    }
}

TEST(RunClaims, OneOwnerPerRunAcrossProcessesAndLaunchesAreIndependent) {
    test::TempDir tmp;
    const auto plan = planOfLengths(std::vector<int64_t>(64, 10));
    // Four processes race through the same queue: every run claimed exactly once.
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p) {
        const pid_t child = fork();
        if (child == 0) {
            const RunClaims claims(tmp / "claims" / "launch-1", fmt::format("rank {}", p));
            std::string mine;
            for (const auto& run : plan)
                if (claims.tryClaim(run).value()) mine += run.id + "\n";
            std::ofstream(tmp / fmt::format("p{}.txt", p)) << mine;
            _exit(0);
        }
        children.push_back(child);
    }
    for (pid_t child : children) {
        int status = 0;
        waitpid(child, &status, 0);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::multiset<std::string> claimed;
    for (int p = 0; p < 4; ++p) {
        std::istringstream lines(test::readFile(tmp / fmt::format("p{}.txt", p)));
        for (std::string line; std::getline(lines, line);)
            claimed.insert(line);
    }
    EXPECT_EQ(claimed.size(), plan.size());
    for (const auto& run : plan)
        EXPECT_EQ(claimed.count(run.id), 1u) << run.id;
    // A later launch (another folder) may claim them all again: a killed launch's claims are void.
    const RunClaims next(tmp / "claims" / "launch-2", "rank 0");
    for (const auto& run : plan)
        EXPECT_TRUE(next.tryClaim(run).value());
    // An uncreatable folder is an error naming the claim.
    std::ofstream(tmp / "file") << "x";
    auto bad = RunClaims(tmp / "file" / "sub", "r").tryClaim(plan[0]);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().file.find("file/sub"), std::string::npos);
}

}  // namespace
}  // namespace gatescope::core
