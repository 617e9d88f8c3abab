// Test support: runs a FoX / Transformer checkpoint written from a fox::RefConfig through
// gatescope (CPU, float32) and checks it against the float64 reference (fox_reference_model.h):
// logits, each layer's recorded q, k, log forget gates, lse, window and heads, and the attention
// probabilities recomputed from the recorded O(N) factors as traces do.
#pragma once

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/maps/head_maps.h"
#include "fox_reference_model.h"
#include "intervention_support.h"
#include "recorded_attention.h"

namespace gatescope::test::fox {

struct Recorder : core::Probe {
    std::map<int, core::LayerRecord> layers;
    void onLayer(core::LayerRecord&& record) override { layers[record.layer] = std::move(record); }
};

/// max |ours - ref| over [H][N][D] (`ours` [H, N, D] flattened), and max |ref|.
inline std::pair<double, double> headDiff(const std::vector<float>& ours,
                                          const std::vector<ref::Mat>& ref) {
    double diff = 0, scale = 1e-12;
    std::size_t i = 0;
    for (const auto& head : ref)
        for (const auto& row : head)
            for (double want : row) {
                diff = std::max(diff, std::abs(double(ours.at(i++)) - want));
                scale = std::max(scale, std::abs(want));
            }
    EXPECT_EQ(i, ours.size());
    return {diff, scale};
}

/// Writes `c` with seed `seed`, runs `n` ids through gatescope and the reference, and checks
/// every output named above. `tolerance`: relative, on logits, q and k. `interventions`
/// (`--intervene` values) run in both: the engine through RunOptions::interventions, the
/// reference through its hooks (intervention_support.h); the recorded gates and the attention
/// recomputed from the factors are then the intervened ones.
inline void expectMatchesReference(const RefConfig& c, const std::string& tag, int64_t n,
                                   unsigned seed, double tolerance = 1e-4,
                                   const std::vector<std::string>& interventions = {}) {
    const auto weights = randomRefWeights(c, seed);
    const auto dir = scratchDir("fox_ref", tag);
    writeCheckpoint(dir, refConfigJson(c), weights);
    auto model = loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const auto& info = (*model)->info();
    EXPECT_EQ(info.heads, c.heads);
    EXPECT_EQ(info.kvHeads, c.kv());
    EXPECT_EQ(info.family, c.hasForgetGate() ? "fox" : "transformer");
    const auto ids = randomIds(n, c.vocab, seed + 1);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    RefHooks hooks;
    if (!interventions.empty()) {
        auto planned = planFor(interventions, info, ids);
        options.interventions = planned.plan;
        hooks = planned.hooks;
    }
    Recorder probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = runReference(c, weights, ids, hooks);
    const auto [logitDiff, logitScale] = headDiff(result->logits.data, {ref.logits});
    std::printf("[ compare  ] %s: logits max |diff| / max |ref| = %.3g\n", tag.c_str(),
                logitDiff / logitScale);
    EXPECT_LT(logitDiff / logitScale, tolerance);

    for (int l = 0; l < c.layers; ++l) {
        SCOPED_TRACE(fmt::format("{} layer {}", tag, l));
        const auto& rec = probe.layers.at(l);
        const auto& refLayer = ref.layers[l];
        EXPECT_EQ(rec.attention.heads, c.heads);
        EXPECT_EQ(rec.attention.kvHeads, c.kv());
        EXPECT_EQ(rec.attention.window, c.window);
        EXPECT_EQ(rec.attention.hasDecay, c.hasForgetGate());
        for (const char* name : {"q", "k"}) {
            const auto [d, s] =
                headDiff(rec.factors.at(name).data, name[0] == 'q' ? refLayer.q : refLayer.k);
            EXPECT_LT(d / s, tolerance) << name;
        }
        const auto [lseDiff, lseScale] = headDiff(rec.factors.at("lse").data, {refLayer.lse});
        EXPECT_LT(lseDiff, tolerance * std::max(1.0, lseScale)) << "lse";
        if (c.hasForgetGate()) {
            // Relative to the gate's size: the deepest layer's log f reaches several nats, and
            // the residual stream's float32 rounding carries 1e-5 of it (1.2e-5 seen in layer 3).
            const auto [d, s] = headDiff(rec.logRetention.data, {refLayer.logF});
            EXPECT_LT(d, 1e-5 * std::max(1.0, s)) << "log forget gate";
        } else {
            EXPECT_TRUE(rec.logRetention.data.empty());
            EXPECT_EQ(rec.factors.count("log_decay_cumsum"), 0u);
        }
        // Attention of every head, recomputed from the stored factors (kv heads serve groups).
        const core::MapSpec spec = core::mapSpecOf(rec.attention);
        for (int h = 0; h < c.heads; ++h) {
            const double worst =
                test::recordedAttentionError(rec, h, c.heads, spec, n, refLayer.probs[h]);
            EXPECT_LT(worst, tolerance) << "attention of head " << h;
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace gatescope::test::fox
