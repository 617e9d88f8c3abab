// `gatescope batch RECIPE`: every checkpoint x input of a recipe traced, analysed and summarised
// into one folder; resumable; sharded with --shard i/K (a Slurm array: --shard auto) or under
// mpirun, where rank 0 joins the shards' results after a barrier.
#include <cstdlib>
#include <sstream>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/batch_figures.h"
#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/mpi_session.h"
#include "app/cli/report.h"
#include "core/batch/batch_runner.h"

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

class BatchCommand final : public Command {
public:
    void declare(CLI::App& sub) override {
        sub.add_option("recipe", m_recipe, "Recipe (JSON; see docs/batch.md)")->required();
        sub.add_option("--shard", m_shard,
                       "Run shard I of K (I/K), or `auto` for a Slurm job array; join later with "
                       "--join");
        sub.add_flag("--join", m_joinOnly, "Only gather the runs' results (after all shards)");
    }

    int run() override {
        auto recipe = core::readRecipe(m_recipe);
        if (!recipe) return reportError(recipe.error());
        const auto plan = core::planBatch(*recipe);
        if (m_joinOnly) return join(*recipe, plan);

        core::Shard shard;
        auto mpi = MpiSession::startIfLaunched();
        if (!m_shard.empty()) {
            auto parsed = parseShard(m_shard);
            if (!parsed) return reportError(parsed.error());
            shard = *parsed;
        } else if (mpi) {
            shard = {mpi->rank(), mpi->size()};
        }
        const std::string who =
            shard.count > 1 ? fmt::format("shard {}/{}", shard.index, shard.count) : "batch";
        fmt::print(stderr, "gatescope: {}: {} runs planned, output {}\n", who, plan.size(),
                   recipe->output.string());
        auto outcome = core::runShard(
            *recipe, plan, shard,
            [&](const core::BatchProgress& p) {
                if (p.state == "running") return;
                fmt::print(stderr, "gatescope: {} [{}/{}] {}: {}\n", who, p.done, p.total, p.run,
                           p.state);
            },
            &installInterruptFlag());
        if (!outcome) return reportError(outcome.error());
        fmt::print(stderr, "gatescope: {}: ran {}, skipped {} (already done), failed {}\n", who,
                   outcome->ran, outcome->skipped, outcome->failed);
        if (mpi && shard.count == mpi->size() && m_shard.empty()) {
            if (!mpi->canSynchronize()) {
                fmt::print(stderr,
                           "gatescope: {}: built without MPI: join with `gatescope batch "
                           "{} --join` once every rank is done\n",
                           who, m_recipe);
                return outcome->failed ? kExitFailure : kExitOk;
            }
            mpi->barrier();
            if (mpi->rank() != 0) return outcome->failed ? kExitFailure : kExitOk;
        } else if (shard.count > 1) {
            fmt::print(stderr,
                       "gatescope: {}: join with `gatescope batch {} --join` once every "
                       "shard is done\n",
                       who, m_recipe);
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

    std::string m_recipe, m_shard;
    bool m_joinOnly = false;
};

}  // namespace

std::unique_ptr<Command> makeBatchCommand() {
    return std::make_unique<BatchCommand>();
}

}  // namespace gatescope::app
