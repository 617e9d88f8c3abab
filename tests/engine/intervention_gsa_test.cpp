// Interventions on Gated Slot Attention (per-slot forget gate alpha = exp(logsigmoid(f) / tau);
// an intervention changes the slots' decay, the write weight 1 - alpha stays the model's) against
// the float64 slot recurrence with the same intervention applied to its alpha
// (gsa_reference_model.h + reference_hooks.h): logits, and the recorded (intervened) gates.
#include <gtest/gtest.h>

#include "core/model/model.h"
#include "gsa_reference_model.h"
#include "intervention_support.h"

namespace gatescope {
namespace {

struct KeepAll : core::Probe {
    std::map<int, core::LayerRecord> layers;
    void onLayer(core::LayerRecord&& record) override { layers[record.layer] = std::move(record); }
};

void expectIntervenedMatches(const test::GsaRefConfig& c, const std::string& tag,
                             const std::vector<std::string>& specs) {
    const auto weights = test::randomGsaWeights(c, 19u);
    const auto dir = test::scratchDir("gsa", "iv_" + tag);
    test::writeGsaCheckpoint(dir, c, weights);
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().gateChannels, c.slots);
    const int64_t n = 150;  // two full 64-token chunks and a partial one
    const auto ids = test::randomIds(n, c.vocab, 5u);
    auto planned = test::planFor(specs, (*model)->info(), ids);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    options.interventions = planned.plan;
    KeepAll probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::gsaReferenceLogits(c, weights, ids, planned.hooks);
    const auto plain = test::gsaReferenceLogits(c, weights, ids);
    double diff = 0.0, scale = 1e-6, moved = 0.0;
    for (int64_t t = 0; t < n; ++t)
        for (int v = 0; v < c.vocab; ++v) {
            diff = std::max(diff, std::abs(result->logits.data[t * c.vocab + v] - ref[t][v]));
            scale = std::max(scale, std::abs(ref[t][v]));
            moved = std::max(moved, std::abs(ref[t][v] - plain[t][v]));
        }
    std::printf("[ interv.  ] %s: logits rel %.1e (the intervention moves them %.2g)\n",
                tag.c_str(), diff / scale, moved);
    EXPECT_LT(diff / scale, 1e-4);
    EXPECT_GT(moved, 1e-3) << "the intervention should change the logits";
    // The recorded cumulative sum (what exact tiles are recomputed from) is that of the recorded,
    // intervened gates.
    for (const auto& [layer, rec] : probe.layers) {
        const auto& cum = rec.factors.at("log_forget_cumsum");
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads, n, c.slots}));
        double worst = 0;
        for (int h = 0; h < c.heads; ++h)
            for (int s = 0; s < c.slots; ++s) {
                double running = 0;
                for (int64_t t = 0; t < n; ++t) {
                    running += rec.logRetention.data[(h * n + t) * c.slots + s];
                    worst =
                        std::max(worst, std::abs(running - cum.data[(h * n + t) * c.slots + s]));
                }
            }
        EXPECT_LT(worst, 1e-3) << "cumulative sum of the recorded gates, layer " << layer;
    }
    std::filesystem::remove_all(dir);
}

test::GsaRefConfig fourHeads() {
    test::GsaRefConfig c;
    c.heads = 4, c.kvHeads = 4, c.hkd = 8, c.hvd = 8, c.slots = 6, c.tau = 4.0;
    return c;
}

class GsaIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(GsaIntervention, MatchesTheIntervenedFloat64Reference) {
    expectIntervenedMatches(fourHeads(), GetParam().name, GetParam().specs);
}
INSTANTIATE_TEST_SUITE_P(Kinds, GsaIntervention, ::testing::ValuesIn(test::channelGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

class GsaGroupedIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(GsaGroupedIntervention, MatchesTheIntervenedFloat64Reference) {
    auto c = fourHeads();
    c.kvHeads = 2, c.featureMap = "relu";
    expectIntervenedMatches(c, std::string("gqa_") + GetParam().name, GetParam().specs);
}
INSTANTIATE_TEST_SUITE_P(Kinds, GsaGroupedIntervention,
                         ::testing::ValuesIn(test::pairedGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
