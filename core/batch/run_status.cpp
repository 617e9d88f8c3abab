#include "core/batch/run_status.h"

#include "core/batch/output_paths.h"
#include "data/common/atomic_file.h"
#include "data/common/bounded_json.h"
#include "data/common/input_file.h"

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

Status writeRunStatus(const BatchRecipe& recipe, const BatchRun& run, const RunStatus& status) {
    const auto path = statusPath(recipe, run);
    if (!path) return path.error();
    return data::writeFileAtomically(*path, statusJson(status, run).dump(1));
}

}  // namespace gatescope::core
