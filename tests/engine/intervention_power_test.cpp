// Interventions on power attention (gate logsigmoid(6.906768 + x), one per kv head, cumulated as
// G_i - G_j) against the float64 reference of train/model.py with the same intervention applied
// to its gates (power_reference_model.h + reference_hooks.h): logits, per-token loss and the
// recorded (intervened) gates; with grouped query heads as well.
#include <cstdio>

#include <gtest/gtest.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "intervention_support.h"
#include "power_test_support.h"

namespace gatescope {
namespace {

using PowerRefConfig = test::power::RefConfig;

void expectIntervenedMatches(const PowerRefConfig& c, const test::InterventionCase& param) {
    test::power::Weights weights;
    std::map<std::string, std::vector<int64_t>> shapes;
    test::power::randomWeights(c, 2027, weights, shapes);
    test::power::ScratchCheckpoint scratch(weights, shapes, test::power::configJson(c),
                                           std::string("iv_") + param.name);
    auto model = core::loadModel(core::Checkpoint::open(scratch.dir()).value());
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().gateChannels, 1);
    EXPECT_EQ((*model)->info().gateGroup, c.ratio);
    const int64_t n = 67;
    const auto ids = test::randomIds(n, c.vocab, 17u);
    std::vector<int32_t> targets(ids.begin() + 1, ids.end());
    targets.push_back(-1);
    auto planned = test::planFor(param.specs, (*model)->info(), ids);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    options.interventions = planned.plan;
    test::RecordingProbe probe;
    auto result = (*model)->forward(ids, targets, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const std::vector<int> refIds(ids.begin(), ids.end()),
        refTargets(targets.begin(), targets.end());
    const auto ref = test::power::runReference(c, weights, refIds, refTargets, planned.hooks);
    const auto plain = test::power::runReference(c, weights, refIds, refTargets);
    const std::vector<float> refLogits(ref.logits.begin(), ref.logits.end());
    const double logitsErr = test::relativeError(result->logits.data, refLogits);
    double lossErr = 0, moved = 0;
    for (int64_t t = 0; t + 1 < n; ++t) {
        lossErr = std::max(lossErr, std::abs(result->loss[t] - ref.loss[t]));
        moved = std::max(moved, std::abs(ref.loss[t] - plain.loss[t]));
    }
    std::printf(
        "[ interv.  ] %s: logits rel %.1e, loss abs %.1e (the intervention moves it %.2g)\n",
        param.name, logitsErr, lossErr, moved);
    EXPECT_LT(logitsErr, 1e-4);
    EXPECT_LT(lossErr, 1e-4);
    EXPECT_GT(moved, 1e-3) << "the intervention should change the loss";
    for (int l = 0; l < c.layers; ++l) {
        const auto& rec = probe.layers.at(l);
        const int hq = c.heads();
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{hq, n, 1}));
        double worst = 0;
        for (int h = 0; h < hq; ++h)
            for (int64_t t = 0; t < n; ++t)
                worst = std::max(worst, std::abs(rec.logRetention.data[h * n + t] -
                                                 ref.layers[l].logG[t * c.kvHeads + h / c.ratio]));
        EXPECT_LT(worst, 1e-5) << "recorded gates of layer " << l;
    }
}

class PowerIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(PowerIntervention, MatchesTheIntervenedFloat64Reference) {
    expectIntervenedMatches(PowerRefConfig{97, 2, 4, 1, 8, 32, true, true, false, 2}, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Kinds, PowerIntervention, ::testing::ValuesIn(test::scalarGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

class PowerGroupedIntervention : public ::testing::TestWithParam<test::InterventionCase> {};
TEST_P(PowerGroupedIntervention, MatchesTheIntervenedFloat64Reference) {
    expectIntervenedMatches(PowerRefConfig{97, 2, 2, 2, 8, 32, true, true, false, 2}, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Kinds, PowerGroupedIntervention,
                         ::testing::ValuesIn(test::pairedGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

/// A gate selection that splits query heads sharing one gate is a usage error naming the group.
TEST(PowerGroupedIntervention, SplittingAGateGroupIsAUsageError) {
    core::ModelInfo info;
    info.layers = 2, info.heads = 4, info.gateChannels = 1, info.gateGroup = 2;
    const std::vector<int32_t> ids = {1, 2, 3};
    auto plan = core::planInterventions(test::parseAll({"gate=1@heads=1"}), info, ids);
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().kind, ErrorKind::Usage);
    EXPECT_NE(plan.error().message.find("query heads 0-1 share one gate"), std::string::npos)
        << plan.error().message;
}

}  // namespace
}  // namespace gatescope
