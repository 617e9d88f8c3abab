// Interventions on FoX (forget gate f_t = sigmoid(.), log f cumulated) and on the RoPE
// Transformer (ablation only) against the float64 reference with the same intervention applied
// to its gates (fox_reference_model.h + reference_hooks.h): logits, the recorded (intervened)
// log forget gates, and every head's attention recomputed from the recorded factors.
#include <gtest/gtest.h>

#include "fox_reference_compare.h"

namespace gatescope {
namespace {

using test::fox::RefConfig;

/// FoX (Pro): data-dependent gate, RoPE, output gate + norm, QK-norm, both shifts.
RefConfig proConfig() {
    RefConfig c;
    c.rope = true, c.ropeBase = 10000.0;
    c.outputGate = true, c.outputNorm = true;
    c.qkNorm = true, c.qkShared = true;
    c.kShift = true, c.vShift = true;
    return c;
}

class FoxIntervention : public ::testing::TestWithParam<test::InterventionCase> {};

TEST_P(FoxIntervention, MatchesTheIntervenedFloat64Reference) {
    const auto& param = GetParam();
    test::fox::expectMatchesReference(proConfig(), std::string("iv_") + param.name, 131, 31u, 1e-4,
                                      param.specs);
}

INSTANTIATE_TEST_SUITE_P(Kinds, FoxIntervention, ::testing::ValuesIn(test::scalarGateCases()),
                         [](const auto& info) { return std::string(info.param.name); });

/// The bias-only gate is one value per head, broadcast over tokens: interventions still act per
/// token and head.
TEST(FoxIntervention, BiasOnlyGateTakesEveryKind) {
    RefConfig c;
    c.fgate = "bias_only";
    test::fox::expectMatchesReference(
        c, "iv_bias_only", 97, 33u, 1e-4,
        {"log_gate*0.37@heads=0-1", "gate=0.8@layers=1;heads=3",
         "gate=clamp(0.5,0.7)@layers=0;heads=2", "ablate@layers=1;heads=1"});
}

/// The Transformer has no gate: ablation is its intervention.
TEST(TransformerIntervention, AblationMatchesTheFloat64Reference) {
    RefConfig c;
    c.transformer = true;
    c.rope = true;
    c.kvHeads = 2;
    test::fox::expectMatchesReference(c, "iv_transformer", 131, 35u, 1e-4,
                                      {"ablate@layers=0;heads=0,3", "ablate@layers=1;heads=2"});
}

/// A gate intervention on a model without gates is a usage error naming the option.
TEST(TransformerIntervention, GateInterventionIsAUsageError) {
    RefConfig c;
    c.transformer = true;
    const auto dir = test::scratchDir("fox_ref", "iv_refused");
    test::writeCheckpoint(dir, test::fox::refConfigJson(c), test::fox::randomRefWeights(c, 3u));
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().gateChannels, 0);
    const std::vector<int32_t> ids = {1, 2, 3};
    auto plan = core::planInterventions(test::parseAll({"gate=1@layers=0"}), (*model)->info(), ids);
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error().kind, ErrorKind::Usage);
    EXPECT_EQ(plan.error().object, "--intervene");
    EXPECT_NE(plan.error().message.find("has no forget gate"), std::string::npos)
        << plan.error().message;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatescope
