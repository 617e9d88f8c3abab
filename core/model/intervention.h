// Interventions on a forward pass: change a layer's forget gates (retention) or drop a head's
// output, then see what follows. This header is the description only (what `trace --intervene`
// parses, what a TraceRequest and the manifest carry); core/model/intervention_plan.h resolves it
// against a loaded model and engine/nn/interventions.h applies it inside each model's forward.
// No LibTorch. Semantics per architecture: docs/interventions.md.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

/// What an intervention does. Gate kinds act on the log gate l = log(gate) <= 0 that the
/// attention cumulates (the trace's gates/log_retention), before its cumulative sum.
enum class InterventionKind {
    GateOne,       ///< "gate=1": l = 0 (no forgetting)
    GateConstant,  ///< "gate=C", 0 < C < 1: l = log C
    LogGateScale,  ///< "log_gate*S", S >= 0: l = S l
    GateClamp,     ///< "gate=clamp(LO,HI)", 0 <= LO <= HI <= 1: l = clamp(l, log LO, log HI)
    GatePatch,     ///< "gate=from:TRACE.h5": l = that trace's stored log gates (same tokens)
    Ablate,        ///< "ablate": the head's slice of the output projection's input is zero
};

/// One `--intervene` value, parsed. Selections are sorted, unique and not yet checked against a
/// model (intervention_plan.h does that); empty means every layer / head / channel.
struct Intervention {
    InterventionKind kind = InterventionKind::GateOne;
    double value = 0;  ///< GateConstant: C; LogGateScale: S
    double low = 0;    ///< GateClamp bounds on the gate (not its log)
    double high = 1;
    std::filesystem::path patchTrace;  ///< GatePatch: the trace to read gates from
    std::vector<int> layers, heads, channels;
    std::string text;  ///< as given, for errors and the manifest

    bool isGate() const { return kind != InterventionKind::Ablate; }
};

/// The option name errors carry.
inline constexpr std::string_view kInterventionOption = "--intervene";

/// Parses "WHAT[@WHERE]":
///   WHAT  = gate=1 | gate=C | gate=clamp(LO,HI) | gate=from:PATH | log_gate*S | ablate
///   WHERE = KEY=LIST[;KEY=LIST...], KEY one of layers, heads, channels; LIST as --layers
///           ("0,2,5-7"). A key given twice, an unknown key, an empty list are errors.
/// Errors are ErrorKind::Usage with `object` = `option` and the message quoting the value.
Result<Intervention> parseIntervention(std::string_view text,
                                       std::string_view option = kInterventionOption);

/// Parses each of `texts` (the repeated option, in order).
Result<std::vector<Intervention>> parseInterventions(const std::vector<std::string>& texts,
                                                     std::string_view option = kInterventionOption);

/// "gate=1", "log_gate*0.37", ...: the kind's canonical spelling with its values.
std::string describeWhat(const Intervention& intervention);

/// The manifest's record of one intervention: {"spec", "kind", values, "layers", "heads",
/// "channels" (null: all), "patch_trace" (absolute path) for GatePatch}.
nlohmann::json toJson(const Intervention& intervention);
nlohmann::json toJson(const std::vector<Intervention>& interventions);

}  // namespace gatescope::core
