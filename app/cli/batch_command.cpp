// `gatescope batch RECIPE`: every checkpoint x input of a recipe traced, analysed and summarised
// into one folder; resumable; sharded with --shard i/K (a Slurm array: --shard auto) or under
// mpirun, where rank 0 joins the shards' results after a barrier.
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <sstream>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/batch_figures.h"
#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/mpi_session.h"
#include "app/cli/report.h"
#include "app/engine_module.h"
#include "core/batch/batch_join.h"
#include "core/batch/launch_environment.h"

namespace gatescope::app {

namespace {

Result<core::Shard> parseShard(const std::string& text) {
    if (text == "auto") {
        const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
        const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
        if (!id || !count)
            return Error{ErrorKind::Usage,
                         "--shard auto needs SLURM_ARRAY_TASK_ID and "
                         "SLURM_ARRAY_TASK_COUNT (a Slurm job array)",
                         {},
                         "--shard"};
        const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
        return core::Shard{std::atoi(id) - (min ? std::atoi(min) : 0), std::atoi(count)};
    }
    core::Shard shard;
    char slash = 0;
    std::istringstream in(text);
    if (!(in >> shard.index >> slash >> shard.count) || slash != '/' || shard.count < 1 ||
        shard.index < 0 || shard.index >= shard.count || !in.eof())
        return Error{ErrorKind::Usage, "expected I/K with 0 <= I < K, e.g. 0/4", {}, "--shard"};
    return shard;
}

/// Host name for status files and claims.
std::string hostName() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "unknown-host";
}

class BatchCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("recipe", m_recipe, "Recipe (JSON or TOML; see docs/batch.md)")->required();
        sub.add_option("--shard", m_shard,
                       "Run shard I of K (I/K, a split balanced by cost), or `auto` for a Slurm "
                       "job array; join later with --join");
        sub.add_option("--device", m_device,
                       "cpu, cuda (each process of a launch takes a GPU by its local rank) or "
                       "cuda:N; overrides the recipe's trace.device");
        sub.add_flag("--join", m_joinOnly, "Only gather the runs' results (after all shards)");
    }

    int run() override {
        auto recipe = core::readRecipe(m_recipe);
        if (!recipe) return reportError(recipe.error());
        if (!m_device.empty()) recipe->trace.device = m_device;
        const auto plan = core::planBatch(*recipe);
        if (m_joinOnly) return join(*recipe, plan);

        const auto launch = core::readLaunchEnvironment();
        auto mpi = MpiSession::startIfLaunched(launch);
        core::BatchWorker worker;
        worker.host = hostName();
        worker.rank = launch.rank;
        if (!m_shard.empty()) {
            auto parsed = parseShard(m_shard);
            if (!parsed) return reportError(parsed.error());
            worker.shard = *parsed;
        } else if (launch.size > 1) {
            worker.shard = {launch.rank, launch.size};
            // One queue for the launch: every rank must use the same id (rank 0's, with MPI).
            std::string id = launch.launchId;
            if (id.empty() && mpi && mpi->canSynchronize())
                id = fmt::format("{}-{}-{}", worker.host, ::getpid(), std::time(nullptr));
            worker.launchId = mpi ? mpi->shareLaunchId(id) : id;
        }
        auto engine = loadEngine();
        if (!engine) return reportError(engine.error());
        const int visible = recipe->trace.device == "cuda" ? (*engine)->visibleCudaDevices() : 0;
        auto device =
            core::assignDevice(recipe->trace.device, recipe->devices, launch.localRank, visible);
        if (!device) {
            auto error = device.error();
            error.file = recipe->file.string();
            return reportError(error);
        }
        worker.device = *device;
        // Fail once, up front, rather than in every run; and name the GPU this process takes.
        auto described = (*engine)->checkDevice(worker.device);
        if (!described) return reportError(described.error());

        const std::string who =
            launch.size > 1 && m_shard.empty() ? fmt::format("rank {}/{}", launch.rank, launch.size)
            : worker.shard.count > 1
                ? fmt::format("shard {}/{}", worker.shard.index, worker.shard.count)
                : "batch";
        fmt::print(stderr, "gatescope: {}: {} runs planned, output {}, device {}{}\n", who,
                   plan.size(), recipe->output.string(), *described,
                   worker.launchId.empty()
                       ? (worker.shard.count > 1 ? ", a share balanced by cost" : "")
                       : fmt::format(", shared queue of {} {}", launch.launcher, worker.launchId));
        if (launch.size > 1 && m_shard.empty() && worker.launchId.empty())
            fmt::print(stderr,
                       "gatescope: {}: the launcher gives no job id to share a queue: each rank "
                       "takes a static share balanced by cost\n",
                       who);
        auto outcome = (*engine)->runShard(
            *recipe, plan, worker,
            [&](const core::BatchProgress& p) {
                if (p.state == "running") return;
                if (p.sharedQueue)
                    fmt::print(stderr, "gatescope: {} [{} here, of {}] {}: {}\n", who, p.done,
                               p.total, p.run, p.state);
                else
                    fmt::print(stderr, "gatescope: {} [{}/{}] {}: {}\n", who, p.done, p.total,
                               p.run, p.state);
            },
            &installInterruptFlag());
        if (!outcome) return reportError(outcome.error());
        fmt::print(stderr, "gatescope: {}: ran {}, skipped {} (already done), failed {}\n", who,
                   outcome->ran, outcome->skipped, outcome->failed);
        if (mpi && launch.size > 1 && m_shard.empty()) {
            if (!mpi->canSynchronize()) {
                fmt::print(stderr,
                           "gatescope: {}: built without MPI: join with `gatescope batch "
                           "{} --join` once every rank is done\n",
                           who, m_recipe);
                return outcome->failed ? kExitFailure : kExitOk;
            }
            mpi->barrier();
            if (mpi->rank() != 0) return outcome->failed ? kExitFailure : kExitOk;
        } else if (launch.size > 1 || worker.shard.count > 1) {
            fmt::print(stderr,
                       "gatescope: {}: join with `gatescope batch {} --join` once every "
                       "{} is done\n",
                       who, m_recipe, m_shard.empty() ? "rank" : "shard");
            return outcome->failed ? kExitFailure : kExitOk;
        }
        return join(*recipe, plan);
    }

private:
    int join(const core::BatchRecipe& recipe, const std::vector<core::BatchRun>& plan) {
        auto joined = core::joinBatch(recipe, plan);
        if (!joined) return reportError(joined.error());
        auto figures = writeBatchFigures(recipe, plan);
        if (!figures) return reportError(figures.error());
        if (*figures) fmt::print(stderr, "gatescope: batch: {} figures written\n", *figures);
        fmt::print("{} runs: {} done, {} failed, {} pending; summary {}\n", plan.size(),
                   joined->done, joined->failed, joined->pending,
                   (recipe.output / "summary.csv").string());
        return joined->failed || joined->pending ? kExitFailure : kExitOk;
    }

    std::string m_recipe, m_shard, m_device;
    bool m_joinOnly = false;
};

}  // namespace

std::unique_ptr<Command> makeBatchCommand() {
    return std::make_unique<BatchCommand>();
}

}  // namespace gatescope::app
