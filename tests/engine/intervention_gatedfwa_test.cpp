// Interventions on GatedFWA (the memory gate log lambda_t = logsigmoid(beta h) / (beta + 1e-3),
// cumulated inside the window) against the float64 nanochat forward with the same intervention
// applied to its gate (gatedfwa_reference_model.h + reference_hooks.h): logits and per-token loss.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "fixture_support.h"
#include "gatedfwa_reference_model.h"
#include "intervention_support.h"

namespace gatescope {
namespace {

namespace gfwa = test::gatedfwa;

class GatedFwaIntervention : public ::testing::TestWithParam<test::InterventionCase> {};

TEST_P(GatedFwaIntervention, MatchesTheIntervenedFloat64Reference) {
    gfwa::RefConfig c;
    c.vocab = 128, c.layers = 2, c.heads = 4, c.hidden = 128;
    c.window = 40, c.kShift = true;
    const int64_t n = 131;
    const auto weights = gfwa::randomWeights(c, 2026u);
    const auto dir = test::scratchDir("gatedfwa", std::string("iv_") + GetParam().name);
    test::writeCheckpoint(dir, gfwa::configJson(c), weights);
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().gateChannels, 1);
    const auto ids = test::randomIds(n, c.vocab, 13u);
    std::vector<int32_t> targets(ids.begin() + 1, ids.end());
    targets.push_back(-1);

    auto planned = test::planFor(GetParam().specs, (*model)->info(), ids);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    options.interventions = planned.plan;
    test::RecordingProbe probe;
    auto result = (*model)->forward(ids, targets, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = gfwa::runReference(c, weights, ids, targets, planned.hooks);
    const auto plain = gfwa::runReference(c, weights, ids, targets);

    double logitDiff = 0, scale = 1e-6, lossDiff = 0, moved = 0;
    for (std::size_t i = 0; i < ref.logitsRaw.size(); ++i) {
        const double capped = 15.0 * std::tanh(ref.logitsRaw[i] / 15.0);
        logitDiff = std::max(logitDiff, std::abs(result->logits.data[i] - capped));
        scale = std::max(scale, std::abs(capped));
    }
    for (int64_t t = 0; t + 1 < n; ++t) {
        lossDiff = std::max(lossDiff, std::abs(result->loss[t] - ref.loss[t]));
        moved = std::max(moved, std::abs(ref.loss[t] - plain.loss[t]));
    }
    std::printf(
        "[ interv.  ] %s: logits rel %.1e, loss abs %.1e (the intervention moves it %.2g)\n",
        GetParam().name, logitDiff / scale, lossDiff, moved);
    EXPECT_LT(logitDiff / scale, 1e-4);
    EXPECT_LT(lossDiff, 1e-4);
    EXPECT_GT(moved, 1e-3) << "the intervention should change the loss";
    // The recorded cumulative sum is the cumulative sum of the recorded (intervened) gates.
    for (const auto& [layer, rec] : probe.layers) {
        const auto& cum = rec.factors.at("log_decay_cumsum");
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads, n, 1}));
        double worst = 0;
        for (int h = 0; h < c.heads; ++h) {
            double running = 0;
            for (int64_t t = 0; t < n; ++t) {
                running += rec.logRetention.data[h * n + t];
                worst = std::max(worst, std::abs(running - cum.data[h * n + t]));
            }
        }
        EXPECT_LT(worst, 1e-4) << "layer " << layer;
    }
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Kinds, GatedFwaIntervention, ::testing::ValuesIn(test::scalarGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
