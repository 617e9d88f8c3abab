#include "engine/jobs/batch_runner.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "core/batch/batch_schedule.h"
#include "core/batch/output_paths.h"
#include "core/build_info.h"
#include "data/common/atomic_file.h"
#include "data/common/bounded_json.h"
#include "data/common/input_file.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

namespace {

/// status/<run>.json, checked to stay inside the output folder.
Result<std::filesystem::path> statusPath(const BatchRecipe& r, const BatchRun& run) {
    return pathInside(r.output, std::filesystem::path("status") / (runFileName(run.id) + ".json"));
}

nlohmann::json statusJson(const RunStatus& s, const BatchRun& run) {
    return {{"id", s.id},
            {"state", s.state},
            {"tokens", s.tokens},
            {"seconds", s.seconds},
            {"mean_loss", s.meanLoss},
            {"error", s.error},
            {"device", s.device},
            {"host", s.host},
            {"trace", run.trace.string()},
            {"checkpoint", run.checkpoint}};
}

}  // namespace

RunStatus readRunStatus(const BatchRecipe& r, const BatchRun& run) {
    RunStatus s;
    s.id = run.id;
    s.state = "pending";
    const auto path = statusPath(r, run);
    if (!path) return s;
    std::error_code ec;
    if (!std::filesystem::exists(*path, ec)) return s;
    // Unreadable, not a regular file, too large or not JSON: pending, so the run goes again.
    auto text = data::readRegularFile(*path, data::input_limits::kStatusFile, "a status file");
    if (!text) return s;
    auto parsed = data::parseBoundedJson(*text, path->string());
    if (!parsed || !parsed->is_object()) return s;
    try {
        const auto& j = *parsed;
        s.state = j.value("state", "pending");
        s.tokens = j.value("tokens", int64_t{0});
        s.seconds = j.value("seconds", 0.0);
        s.meanLoss = j.value("mean_loss", 0.0);
        s.error = j.value("error", "");
        s.device = j.value("device", "");
        s.host = j.value("host", "");
    } catch (const nlohmann::json::exception&) {
        return s;  // unreadable status: run it again
    }
    const auto trace = pathInside(r.output, run.trace);
    if (s.state == "done" && (!trace || !std::filesystem::exists(*trace, ec))) s.state = "pending";
    return s;
}

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
        const auto status = statusPath(recipe, *run);
        if (!status) return status.error();
        if (auto st = data::writeFileAtomically(*status, statusJson(s, *run).dump(1)); !st)
            return st.error();
        ++outcome.ran;
        if (s.state == "failed") ++outcome.failed;
        ++p.done;
        p.state = s.state == "done" ? "done" : "failed: " + s.error;
        if (progress) progress(p);
    }
    return outcome;
}

}  // namespace gatescope::core
