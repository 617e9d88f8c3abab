// `--intervene` values: parsing every kind and selector, refusing the rest with an error naming
// the option and the value, and planInterventions' checks against a model's ranges and gates.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/batch/batch_recipe.h"
#include "core/model/intervention_plan.h"

namespace gatescope {
namespace {

using core::InterventionKind;

TEST(InterventionParse, ReadsEveryKindWithItsValues) {
    auto one = core::parseIntervention("gate=1@layers=2;heads=0-3");
    ASSERT_TRUE(one) << one.error().describe();
    EXPECT_EQ(one->kind, InterventionKind::GateOne);
    EXPECT_EQ(one->layers, (std::vector<int>{2}));
    EXPECT_EQ(one->heads, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(one->channels.empty());

    auto constant = core::parseIntervention("gate=0.8");
    ASSERT_TRUE(constant);
    EXPECT_EQ(constant->kind, InterventionKind::GateConstant);
    EXPECT_DOUBLE_EQ(constant->value, 0.8);
    EXPECT_TRUE(constant->layers.empty());

    auto scale = core::parseIntervention("log_gate*0.37@layers=1,0;channels=3,1-2");
    ASSERT_TRUE(scale);
    EXPECT_EQ(scale->kind, InterventionKind::LogGateScale);
    EXPECT_DOUBLE_EQ(scale->value, 0.37);
    EXPECT_EQ(scale->layers, (std::vector<int>{0, 1}));  // sorted
    EXPECT_EQ(scale->channels, (std::vector<int>{1, 2, 3}));

    auto clamp = core::parseIntervention("gate=clamp(0.9, 1)@heads=1");
    ASSERT_TRUE(clamp);
    EXPECT_EQ(clamp->kind, InterventionKind::GateClamp);
    EXPECT_DOUBLE_EQ(clamp->low, 0.9);
    EXPECT_DOUBLE_EQ(clamp->high, 1.0);

    auto patch = core::parseIntervention("gate=from:runs/other.h5@layers=0");
    ASSERT_TRUE(patch);
    EXPECT_EQ(patch->kind, InterventionKind::GatePatch);
    EXPECT_EQ(patch->patchTrace, "runs/other.h5");

    auto ablate = core::parseIntervention("ablate@layers=3;heads=1");
    ASSERT_TRUE(ablate);
    EXPECT_EQ(ablate->kind, InterventionKind::Ablate);
    EXPECT_FALSE(ablate->isGate());
    EXPECT_EQ(core::toJson(*ablate)["spec"], "ablate@layers=3;heads=1");
    EXPECT_EQ(core::toJson(*scale)["log_gate_scale"], 0.37);
}

struct BadValue {
    const char* text;
    const char* says;
};

class InterventionRefused : public ::testing::TestWithParam<BadValue> {};

TEST_P(InterventionRefused, NamesTheOptionAndTheValue) {
    auto parsed = core::parseIntervention(GetParam().text);
    ASSERT_FALSE(parsed) << GetParam().text;
    EXPECT_EQ(parsed.error().kind, ErrorKind::Usage);
    EXPECT_EQ(parsed.error().object, "--intervene");
    const auto& message = parsed.error().message;
    EXPECT_NE(message.find(GetParam().text), std::string::npos) << message;
    EXPECT_NE(message.find(GetParam().says), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Values, InterventionRefused,
    ::testing::Values(
        BadValue{"forget@layers=0", "unknown intervention"}, BadValue{"gate=1.5", "0 < C <= 1"},
        BadValue{"gate=0", "0 < C <= 1"}, BadValue{"gate=nan", "0 < C <= 1"},
        BadValue{"log_gate*-1", "S >= 0"}, BadValue{"gate=clamp(0.9,0.5)", "LO <= HI"},
        BadValue{"gate=clamp(0.5)", "LO <= HI"}, BadValue{"gate=clamp(0.1,0.5", "')'"},
        BadValue{"gate=from:", "trace file"}, BadValue{"gate=1@", "nothing after '@'"},
        BadValue{"gate=1@layer=0", "unknown selector"},
        BadValue{"gate=1@layers=0;layers=1", "given twice"},
        BadValue{"gate=1@heads=", "no indices"}, BadValue{"gate=1@layers=3-1", "indices like"},
        BadValue{"ablate@heads=0;channels=1", "channels= does not apply"}));

core::ModelInfo fourByFour(int gateChannels, int gateGroup = 1) {
    core::ModelInfo info;
    info.modelType = "test";
    info.family = gateChannels ? "fox" : "transformer";
    info.layers = 4, info.heads = 4, info.gateChannels = gateChannels, info.gateGroup = gateGroup;
    return info;
}

Error refusal(const std::string& text, const core::ModelInfo& info) {
    auto items = core::parseInterventions({text});
    EXPECT_TRUE(items) << items.error().describe();
    const std::vector<int32_t> ids = {1, 2, 3};
    auto plan = core::planInterventions(*items, info, ids);
    EXPECT_FALSE(plan) << text;
    return plan ? Error{} : plan.error();
}

TEST(InterventionPlan, RefusesIndicesOutsideTheModelNamingItsRange) {
    auto e = refusal("gate=1@layers=4", fourByFour(1));
    EXPECT_EQ(e.kind, ErrorKind::Usage);
    EXPECT_EQ(e.object, "--intervene");
    EXPECT_NE(e.message.find("layer 4 is outside the model's 4 layers (0-3)"), std::string::npos)
        << e.message;
    e = refusal("ablate@heads=7", fourByFour(0));
    EXPECT_NE(e.message.find("head 7 is outside the model's 4 heads (0-3)"), std::string::npos)
        << e.message;
    e = refusal("gate=1@channels=1", fourByFour(1));
    EXPECT_NE(e.message.find("one scalar per head"), std::string::npos) << e.message;
    e = refusal("gate=1@channels=8", fourByFour(8));
    EXPECT_NE(e.message.find("gate channel 8 is outside the model's 8"), std::string::npos)
        << e.message;
}

TEST(InterventionPlan, RefusesGatesOnAModelWithoutThemAndSplitGroups) {
    auto e = refusal("gate=0.5", fourByFour(0));
    EXPECT_NE(e.message.find("has no forget gate: only ablate applies"), std::string::npos)
        << e.message;
    e = refusal("log_gate*2@heads=0,2", fourByFour(1, 2));
    EXPECT_NE(e.message.find("query heads 0-1 share one gate"), std::string::npos) << e.message;
}

TEST(InterventionPlan, RefusesUnreadablePatchTraces) {
    auto e = refusal("gate=from:/nonexistent/patch.h5", fourByFour(1));
    EXPECT_NE(e.message.find("gate=from:/nonexistent/patch.h5"), std::string::npos) << e.message;
}

TEST(InterventionPlan, AcceptsWholeGroupsAndSelectsWhatItNames) {
    auto items = core::parseInterventions({"gate=1@layers=1;heads=2-3;channels=0,5", "ablate"});
    ASSERT_TRUE(items);
    const std::vector<int32_t> ids = {1, 2, 3};
    auto plan = core::planInterventions(*items, fourByFour(6, 2), ids);
    ASSERT_TRUE(plan) << plan.error().describe();
    const auto& p = **plan;
    EXPECT_TRUE(p.selectsLayer(p.items[0], 1));
    EXPECT_FALSE(p.selectsLayer(p.items[0], 0));
    EXPECT_TRUE(p.selectsHead(p.items[0], 3));
    EXPECT_FALSE(p.selectsChannel(p.items[0], 4));
    EXPECT_TRUE(p.selectsHead(p.items[1], 0));
    auto none = core::planInterventions({}, fourByFour(6, 2), ids);
    ASSERT_TRUE(none);
    EXPECT_EQ(*none, nullptr);
}

}  // namespace
}  // namespace gatescope

namespace gatescope {
namespace {

std::filesystem::path writeRecipe(const std::string& name, const nlohmann::json& trace) {
    const auto dir = std::filesystem::temp_directory_path() / "gatescope_intervention_recipe";
    std::filesystem::create_directories(dir);
    const auto file = dir / name;
    nlohmann::json recipe = {{"output", "out"},
                             {"checkpoints", {"models/fox"}},
                             {"inputs", {"a.txt"}},
                             {"trace", trace}};
    std::ofstream(file) << recipe.dump();
    return file;
}

TEST(InterventionRecipe, TraceInterventionsAreReadWithPatchPathsBesideTheRecipe) {
    const auto file = writeRecipe(
        "ok.json", {{"interventions", {"gate=1@layers=1", "gate=from:base.h5@layers=0"}}});
    auto recipe = core::readRecipe(file);
    ASSERT_TRUE(recipe) << recipe.error().describe();
    const auto& items = recipe->trace.interventions;
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0].kind, InterventionKind::GateOne);
    EXPECT_EQ(items[1].patchTrace, std::filesystem::absolute(file).parent_path() / "base.h5");
}

TEST(InterventionRecipe, ABadValueNamesTheKey) {
    for (const auto& bad : {nlohmann::json{{"interventions", {"gate=7"}}},
                            nlohmann::json{{"interventions", "gate=1"}}}) {
        auto recipe = core::readRecipe(writeRecipe("bad.json", bad));
        ASSERT_FALSE(recipe) << bad.dump();
        EXPECT_EQ(recipe.error().object, "trace.interventions") << recipe.error().describe();
    }
}

}  // namespace
}  // namespace gatescope
