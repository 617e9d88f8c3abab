// joinBatch: the summary tables, per-checkpoint analyses and the loss index over all shards' runs.
#include "core/batch/batch_join.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/batch/output_paths.h"
#include "core/batch/run_status.h"
#include "data/common/atomic_file.h"
#include "data/index/loss_index.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

namespace {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
    return out + "\"";
}

Status writeSummary(const BatchRecipe& recipe, const std::vector<BatchRun>& plan,
                    const std::vector<RunStatus>& statuses) {
    std::string csv =
        "run,checkpoint,input,begin,end,state,tokens,seconds,mean_loss,trace,error,device,host\n";
    nlohmann::json json = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const auto& run = plan[i];
        const auto& s = statuses[i];
        const std::string end = run.input.end ? std::to_string(*run.input.end) : "";
        csv += fmt::format("{},{},{},{},{},{},{},{:.3f},{},{},{},{},{}\n", csvField(run.id),
                           csvField(run.checkpoint), csvField(run.input.path.string()),
                           run.input.begin, end, s.state, s.tokens, s.seconds,
                           s.state == "done" ? fmt::format("{:.6f}", s.meanLoss) : "",
                           csvField(run.trace.string()), csvField(s.error), csvField(s.device),
                           csvField(s.host));
        json.push_back({{"run", run.id},
                        {"checkpoint", run.checkpoint},
                        {"input", run.input.path.string()},
                        {"begin", run.input.begin},
                        {"end", run.input.end ? nlohmann::json(*run.input.end) : nullptr},
                        {"state", s.state},
                        {"tokens", s.tokens},
                        {"seconds", s.seconds},
                        {"mean_loss", s.state == "done" ? nlohmann::json(s.meanLoss) : nullptr},
                        {"trace", run.trace.string()},
                        {"error", s.error},
                        {"device", s.device},
                        {"host", s.host}});
    }
    if (auto st = data::writeFileAtomically(recipe.output / "summary.csv", csv); !st) return st;
    return data::writeFileAtomically(recipe.output / "summary.json", json.dump(1));
}

}  // namespace

Result<JoinOutcome> joinBatch(const BatchRecipe& recipe, const std::vector<BatchRun>& plan) {
    JoinOutcome outcome;
    std::vector<RunStatus> statuses;
    std::map<std::string, std::vector<std::shared_ptr<const data::TraceReader>>> byCheckpoint;
    std::vector<data::LossIndexEntry> index;
    for (const auto& run : plan) {
        statuses.push_back(readRunStatus(recipe, run));
        const auto& s = statuses.back();
        if (s.state == "done") {
            ++outcome.done;
            auto trace = pathInside(recipe.output, run.trace);
            if (!trace) return trace.error();
            auto reader = data::TraceReader::open(*trace);
            if (!reader) return reader.error();
            byCheckpoint[run.checkpoint].push_back(*reader);
            index.push_back({run.id, run.trace, (*reader)->summary().nTokens});
        } else if (s.state == "failed") {
            ++outcome.failed;
        } else {
            ++outcome.pending;
        }
    }
    if (auto st = writeSummary(recipe, plan, statuses); !st) return st.error();
    for (const auto& [name, traces] : byCheckpoint) {
        auto report = statsReport(traces, recipe.analyses);
        if (!report) return report.error();
        const auto dir = pathInside(recipe.output, std::filesystem::path("analyses") / name);
        if (!dir) return dir.error();
        if (auto st = writeStatsCsv(*report, *dir); !st) return st.error();
        if (auto st = data::writeFileAtomically(*dir / "stats.json", report->toJson().dump(1)); !st)
            return st.error();
    }
    if (auto st = data::writeLossIndex(recipe.output / "index.h5", index); !st) return st.error();
    return outcome;
}

}  // namespace gatescope::core
