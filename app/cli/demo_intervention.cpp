#include "app/cli/demo_intervention.h"

#include <cmath>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "app/cli/interrupt.h"
#include "app/engine_module.h"
#include "data/common/atomic_file.h"
#include "data/trace/trace_reader.h"

namespace gatescope::app {

namespace {

Result<std::vector<float>> lossOf(const std::filesystem::path& trace) {
    auto reader = data::TraceReader::open(trace);
    if (!reader) return reader.error();
    auto perToken = (*reader)->perToken();
    if (!perToken) return perToken.error();
    return std::move(perToken->loss);
}

}  // namespace

Result<DemoIntervention> runDemoIntervention(const std::filesystem::path& model,
                                             const std::filesystem::path& text, int64_t tokens,
                                             const std::filesystem::path& baseline,
                                             const std::filesystem::path& out) {
    const std::string spec = fmt::format("gate=1@layers={}", kDemoNoForgetLayer);
    core::TraceRequest request;
    request.modelDir = model;
    request.input.path = text;
    if (tokens > 0) request.input.end = tokens;
    request.out = out / fmt::format("{}-no-forgetting-layer{}.h5", model.filename().string(),
                                    kDemoNoForgetLayer);
    request.storePyramids = false;
    request.storeFactors = false;
    auto items = core::parseInterventions({spec});
    if (!items) return items.error();
    request.interventions = std::move(*items);
    DemoIntervention result;
    auto engine = loadEngine();
    if (!engine) return engine.error();
    auto outcome = (*engine)->runTraceJob(request, {}, &installInterruptFlag(), nullptr);
    if (!outcome) {
        if (outcome.error().kind != ErrorKind::Usage) return outcome.error();
        result.note = outcome.error().describe();  // e.g. model A has no forget gate
        return result;
    }
    auto base = lossOf(baseline);
    if (!base) return base.error();
    auto changed = lossOf(outcome->path);
    if (!changed) return changed.error();
    double within = 0, beyond = 0;
    for (std::size_t i = 0; i < base->size() && i < changed->size(); ++i) {
        const double d = double((*changed)[i]) - double((*base)[i]);
        if (!std::isfinite(d)) continue;
        if (static_cast<int64_t>(i) < kDemoTrainingLength)
            within += d, ++result.within;
        else
            beyond += d, ++result.beyond;
    }
    result.shown = true;
    result.trace = outcome->path;
    result.deltaWithin = result.within ? within / result.within : 0.0;
    result.deltaBeyond = result.beyond ? beyond / result.beyond : 0.0;
    const nlohmann::json summary = {
        {"model", model.string()},
        {"intervention", spec},
        {"trace", outcome->path.string()},
        {"baseline", baseline.string()},
        {"training_length", kDemoTrainingLength},
        {"mean_loss_delta_within", result.deltaWithin},
        {"mean_loss_delta_beyond", result.deltaBeyond},
        {"positions_within", result.within},
        {"positions_beyond", result.beyond},
        {"delta", "intervened minus baseline per-token loss, nats (positive: worse)"}};
    if (auto st = data::writeFileAtomically(out / "intervention.json", summary.dump(2) + "\n"); !st)
        return st.error();
    return result;
}

}  // namespace gatescope::app
