// Interventions on Wall attention (per-channel retention g = softclamp(logsigmoid(g_proj(x))),
// cumulated per channel inside the dot product; the scalar gate when there are no channel gates)
// against the float64 model written from the formula with the same intervention applied to its
// gates (wall_reference_model.h + reference_hooks.h): logits, layer 0's recorded (intervened)
// gates and its attention recomputed from the recorded factors.
#include <gtest/gtest.h>

#include "core/maps/head_maps.h"
#include "core/model/model.h"
#include "intervention_support.h"
#include "recorded_attention.h"
#include "wall_reference_model.h"

namespace gatescope {
namespace {

struct KeepFirstTokens : core::Probe {
    bool wantsLayer(int layer) const override { return layer == 0; }
    void onLayer(core::LayerRecord&& record) override { first = std::move(record); }
    core::LayerRecord first;
};

void expectIntervenedMatches(const test::WallRefConfig& c, const std::string& tag,
                             const std::vector<std::string>& specs) {
    const auto weights = test::randomWallWeights(c, 23u);
    const auto dir = test::scratchDir("wall", "iv_" + tag);
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const int64_t n = 131;
    const auto ids = test::randomIds(n, c.vocab, 5u);
    auto planned = test::planFor(specs, (*model)->info(), ids);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    options.interventions = planned.plan;
    KeepFirstTokens probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::wallReference(c, weights, ids, {}, planned.hooks);
    const auto plain = test::wallReference(c, weights, ids, {});
    double diff = 0.0, scale = 1e-6, moved = 0.0;
    for (int64_t t = 0; t < n; ++t)
        for (int v = 0; v < c.vocab; ++v) {
            diff =
                std::max(diff, std::abs(result->logits.data[t * c.vocab + v] - ref.logits[t][v]));
            scale = std::max(scale, std::abs(ref.logits[t][v]));
            moved = std::max(moved, std::abs(ref.logits[t][v] - plain.logits[t][v]));
        }
    std::printf("[ interv.  ] %s: logits rel %.1e (the intervention moves them %.2g)\n",
                tag.c_str(), diff / scale, moved);
    EXPECT_LT(diff / scale, 1e-4);
    EXPECT_GT(moved, 1e-3) << "the intervention should change the logits";

    const auto& rec = probe.first;
    const int channels = c.gateDim > 0 ? c.gateDim : 1;
    ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads, n, channels}));
    double gateDiff = 0.0;
    for (int h = 0; h < c.heads; ++h)
        for (int64_t t = 0; t < n; ++t)
            for (int ch = 0; ch < channels; ++ch) {
                const double want =
                    c.gateDim > 0 ? ref.logGates0[h][t][ch] : ref.scalarGates0[h][t];
                gateDiff = std::max(
                    gateDiff, std::abs(rec.logRetention.data[(h * n + t) * channels + ch] - want));
            }
    EXPECT_LT(gateDiff, 1e-5) << "recorded gates";
    const core::MapSpec spec = core::mapSpecOf(rec.attention);
    for (int h = 0; h < c.heads; ++h) {
        const double probDiff =
            test::recordedAttentionError(rec, h, c.heads, spec, n, ref.probs0[h]);
        EXPECT_LT(probDiff, 5e-5) << "attention of head " << h << " from the recorded factors";
    }
    std::filesystem::remove_all(dir);
}

class WallIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(WallIntervention, MatchesTheIntervenedFloat64Reference) {
    test::WallRefConfig c;  // 4 heads, 8 gated channels of 8, soft clamp 0.86, RoPE
    expectIntervenedMatches(c, GetParam().name, GetParam().specs);
}
INSTANTIATE_TEST_SUITE_P(Kinds, WallIntervention, ::testing::ValuesIn(test::channelGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

class WallTiedIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(WallTiedIntervention, MatchesTheIntervenedFloat64Reference) {
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true, c.gateDim = 6, c.window = 64, c.sink = true;
    expectIntervenedMatches(c, std::string("tied_") + GetParam().name, GetParam().specs);
}
INSTANTIATE_TEST_SUITE_P(Kinds, WallTiedIntervention, ::testing::ValuesIn(test::pairedGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

/// Without channel gates the scalar gate (use_scalar_gate) is the layer's gate.
TEST(WallIntervention, ScalarGateOnlyModelTakesGateInterventions) {
    test::WallRefConfig c;
    c.gateDim = 0, c.scalarGate = true;
    expectIntervenedMatches(
        c, "scalar_only",
        {"gate=1@layers=0;heads=1", "log_gate*0.37@layers=1;heads=0,2", "ablate@layers=1;heads=3"});
}

}  // namespace
}  // namespace gatescope
