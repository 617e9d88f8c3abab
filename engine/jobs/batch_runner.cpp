#include "engine/jobs/batch_runner.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "core/batch/batch_schedule.h"
#include "core/batch/output_paths.h"
#include "core/build_info.h"
#include "data/common/atomic_file.h"
#include "data/trace/trace_reader.h"
#include "engine/trace/trace_job.h"

namespace gatescope::core {

namespace {

double meanLoss(const std::filesystem::path& trace) {
    auto reader = data::TraceReader::open(trace);
    if (!reader) return NAN;
    auto perToken = (*reader)->perToken();
    if (!perToken) return NAN;
    double sum = 0;
    int64_t n = 0;
    for (float l : perToken->loss)
        if (!std::isnan(l)) sum += l, ++n;
    return n ? sum / n : NAN;
}

RunStatus execute(const BatchRecipe& recipe, const BatchRun& run, const BatchWorker& worker,
                  LoadedModelCache& models, const std::atomic<bool>* cancel,
                  const std::function<void(double)>& onFraction) {
    RunStatus s;
    s.id = run.id;
    s.state = "failed";
    s.host = fmt::format("{} rank {}", worker.host, worker.rank);
    if (run.planError) {
        s.error = run.planError->describe();
        return s;
    }
    auto out = pathInside(recipe.output, run.trace);
    if (!out) {
        s.error = out.error().describe();
        return s;
    }
    TraceRequest request = recipe.trace;
    if (!worker.device.empty()) request.device = worker.device;
    s.device = request.device;
    request.modelDir = run.checkpointDir;
    request.input = run.input;
    request.out = *out;
    std::error_code ec;
    std::filesystem::create_directories(request.out.parent_path(), ec);
    auto outcome = runTraceJob(
        request, [&](const TraceProgress& p) { onFraction(p.fraction); }, cancel, &models);
    if (!outcome) {
        s.state = outcome.error().kind == ErrorKind::Cancelled ? "pending" : "failed";
        s.error = outcome.error().describe();
        return s;
    }
    s.state = "done";
    s.device = outcome->device;
    s.tokens = outcome->tokens;
    s.seconds = outcome->seconds;
    s.meanLoss = meanLoss(request.out);
    return s;
}

Status writeManifest(const BatchRecipe& recipe, const std::vector<BatchRun>& plan) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : plan)
        runs.push_back({{"index", run.index},
                        {"id", run.id},
                        {"checkpoint", run.checkpoint},
                        {"checkpoint_dir", run.checkpointDir.string()},
                        {"input", run.input.path.string()},
                        {"kind", toString(run.input.kind)},
                        {"begin", run.input.begin},
                        {"end", run.input.end ? nlohmann::json(*run.input.end) : nullptr},
                        {"trace", run.trace.string()}});
    const nlohmann::json manifest = {{"gatescope_version", gatescopeVersion()},
                                     {"git_revision", gatescopeGitRevision()},
                                     {"recipe_file", recipe.file.string()},
                                     {"recipe", recipe.source},
                                     {"runs", runs}};
    return data::writeFileAtomically(recipe.output / "manifest.json", manifest.dump(1));
}

}  // namespace

Result<ShardOutcome> runShard(const BatchRecipe& recipe, const std::vector<BatchRun>& plan,
                              const BatchWorker& worker,
                              const std::function<void(const BatchProgress&)>& progress,
                              const std::atomic<bool>* cancel) {
    std::error_code ec;
    std::filesystem::create_directories(recipe.output / "status", ec);
    if (ec)
        return Error{ErrorKind::Io,
                     "cannot create the output folder: " + ec.message(),
                     recipe.output.string(),
                     {}};
    if (auto st = writeManifest(recipe, plan); !st) return st.error();
    const bool queued = !worker.launchId.empty();
    std::vector<const BatchRun*> mine;
    const auto shardOf = balancedShards(plan, worker.shard.count);
    for (int index : costliestFirst(plan))
        if (queued || shardOf[index] == worker.shard.index) mine.push_back(&plan[index]);
    const RunClaims claims(recipe.output / "claims" / runFileName(worker.launchId),
                           nlohmann::json{{"rank", worker.rank},
                                          {"host", worker.host},
                                          {"pid", static_cast<int64_t>(::getpid())},
                                          {"device", worker.device}}
                               .dump());
    LoadedModelCache models;  // consecutive runs of one checkpoint load it once
    ShardOutcome outcome;
    BatchProgress p;
    p.total = static_cast<int>(mine.size());
    p.sharedQueue = queued;
    for (const BatchRun* run : mine) {
        if (cancel && cancel->load()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        if (queued) {
            auto claimed = claims.tryClaim(*run);
            if (!claimed) return claimed.error();
            if (!*claimed) continue;  // another process of this launch has it
        }
        p.run = run->id;
        if (readRunStatus(recipe, *run).state == "done") {
            ++outcome.skipped;
            ++p.done;
            p.state = "already done";
            if (progress) progress(p);
            continue;
        }
        p.state = "running";
        p.runFraction = 0;
        if (progress) progress(p);
        const RunStatus s = execute(recipe, *run, worker, models, cancel, [&](double f) {
            p.runFraction = f;
            if (progress) progress(p);
        });
        if (s.state == "pending") return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        if (auto st = writeRunStatus(recipe, *run, s); !st) return st.error();
        ++outcome.ran;
        if (s.state == "failed") ++outcome.failed;
        ++p.done;
        p.state = s.state == "done" ? "done" : "failed: " + s.error;
        if (progress) progress(p);
    }
    return outcome;
}

}  // namespace gatescope::core
