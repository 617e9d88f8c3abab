// Test support for the intervention tests (intervention_*_test.cpp): parsing a list of
// `--intervene` values, the plan a forward carries (through planInterventions, or built by hand
// with random patch gates standing in for a patch trace's), and the float64 hooks that apply the
// same interventions to a reference model (reference_hooks.h).
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/intervention_plan.h"
#include "reference_hooks.h"
#include "reference_model_support.h"

namespace gatescope::test {

/// One intervention case: the `--intervene` values, in order.
struct InterventionCase {
    const char* name;
    std::vector<std::string> specs;
};

inline void PrintTo(const InterventionCase& c, std::ostream* os) {
    *os << c.name;
}

inline std::vector<core::Intervention> parseAll(const std::vector<std::string>& specs) {
    auto parsed = core::parseInterventions(specs);
    EXPECT_TRUE(parsed) << parsed.error().describe();
    return parsed ? *parsed : std::vector<core::Intervention>{};
}

/// An intervention plan and the matching reference hooks. Patch interventions ("gate=from:...")
/// get random log gates in [-3, 0) per selected layer instead of a trace's (the trace reading is
/// tested in tests/app); the rest goes through planInterventions, as traces do.
struct PlannedInterventions {
    std::shared_ptr<const core::InterventionPlan> plan;
    RefHooks hooks;
};

inline PlannedInterventions planFor(const std::vector<std::string>& specs,
                                    const core::ModelInfo& info, const std::vector<int32_t>& ids,
                                    unsigned seed = 7u) {
    auto items = parseAll(specs);
    std::vector<core::Intervention> unpatched;
    for (const auto& item : items)
        if (item.kind != core::InterventionKind::GatePatch) unpatched.push_back(item);
    auto checked = core::planInterventions(unpatched, info, ids);
    EXPECT_TRUE(checked) << checked.error().describe();
    auto plan = std::make_shared<core::InterventionPlan>();
    plan->layers = info.layers;
    plan->heads = info.heads;
    plan->gateGroup = info.gateGroup;
    plan->gateChannels = info.gateChannels;
    std::vector<RefPatch> refPatches;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> logGate(-3.0, -1e-3);
    const int64_t n = static_cast<int64_t>(ids.size());
    const int gateHeads = info.heads / info.gateGroup, channels = info.gateChannels;
    for (const auto& item : items) {
        plan->items.push_back(item);
        plan->patches.emplace_back();
        refPatches.emplace_back();
        if (item.kind != core::InterventionKind::GatePatch) continue;
        for (int l = 0; l < info.layers; ++l) {
            if (!plan->selectsLayer(item, l)) continue;
            core::FloatArray a;
            a.shape = {gateHeads, n, channels};
            auto& ref = refPatches.back()[l];
            ref.assign(gateHeads,
                       std::vector<std::vector<double>>(n, std::vector<double>(channels)));
            for (int g = 0; g < gateHeads; ++g)
                for (int64_t t = 0; t < n; ++t)
                    for (int ch = 0; ch < channels; ++ch) {
                        const float v = static_cast<float>(logGate(rng));
                        a.data.push_back(v);
                        ref[g][t][ch] = v;
                    }
            plan->patches.back().emplace(l, std::move(a));
        }
    }
    return {plan, interventionHooks(items, info.gateGroup, refPatches)};
}

/// Cases every architecture with a scalar gate runs (4 heads, 2 layers; `g` heads per gate).
inline std::vector<InterventionCase> scalarGateCases() {
    return {
        {"gate_one_layer1_heads1", {"gate=1@layers=1;heads=1"}},
        {"gate_constant_0_8_two_layers", {"gate=0.8@layers=0,1;heads=2-3"}},
        {"log_gate_scale_0_37_all_heads", {"log_gate*0.37@layers=1"}},
        {"log_gate_scale_2_5_then_clamp", {"log_gate*2.5@layers=0", "gate=clamp(0,0.9)"}},
        {"clamp_0_6_0_95", {"gate=clamp(0.6,0.95)@layers=0,1;heads=0-1"}},
        {"patch_layer1_heads0_1", {"gate=from:patch.h5@layers=1;heads=0-1"}},
        {"ablate_heads_in_two_layers", {"ablate@layers=0;heads=1", "ablate@layers=1;heads=0,3"}},
        {"everything",
         {"gate=from:patch.h5@layers=0;heads=2-3", "gate=1@layers=1;heads=0-1",
          "ablate@layers=1;heads=2"}},
    };
}

/// Cases for per-channel gates (Wall channels, GSA slots): channel subsets as well.
inline std::vector<InterventionCase> channelGateCases() {
    auto cases = scalarGateCases();
    cases.push_back({"gate_one_channels_1_3", {"gate=1@layers=0;heads=0-1;channels=1-3"}});
    cases.push_back(
        {"patch_channels_0_2_then_scale",
         {"gate=from:p.h5@layers=1;channels=0,2", "log_gate*0.37@layers=1;channels=2-5"}});
    return cases;
}

/// Cases for gates shared by pairs of query heads (grouped-query power, tied Wall gates, GSA with
/// 2 kv heads): gate selections take whole pairs; ablation still takes single heads.
inline std::vector<InterventionCase> pairedGateCases() {
    return {
        {"paired_gate_one", {"gate=1@layers=1;heads=2-3"}},
        {"paired_scale_then_clamp", {"log_gate*0.37@layers=0;heads=0-1", "gate=clamp(0.6,0.95)"}},
        {"paired_constant", {"gate=0.8@layers=0,1;heads=0-1"}},
        {"paired_patch", {"gate=from:p.h5@layers=0,1;heads=2-3"}},
        {"paired_ablate_single_head", {"ablate@layers=0;heads=1", "ablate@layers=1;heads=2"}},
    };
}

}  // namespace gatescope::test
