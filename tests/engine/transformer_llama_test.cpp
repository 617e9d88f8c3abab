// The Transformer (LLaMA) baseline's own model type, "transformer-project_fox" (TransformerConfig,
// model/transformer/ of the official FoX code): grouped-query heads, sliding windows, RoPE, against
// the float64 reference (fox_reference_model.h); and its config.json read key by key.
#include <gtest/gtest.h>

#include "fox_reference_compare.h"

namespace gatescope {
namespace {

using test::fox::RefConfig;

RefConfig transformer() {
    RefConfig c;
    c.transformer = true;
    c.rope = true;  // the TransformerConfig default
    return c;
}

struct LlamaVariant {
    const char* name;
    RefConfig config;
    int64_t n;
};

class TransformerLlama : public ::testing::TestWithParam<LlamaVariant> {};

TEST_P(TransformerLlama, MatchesTheFloat64Reference) {
    const auto& v = GetParam();
    test::fox::expectMatchesReference(v.config, v.name, v.n, 47u);
}

/// Two query heads per kv head, a 37-key window, RoPE at the default base 500000.
RefConfig gqaWindow() {
    auto c = transformer();
    c.kvHeads = 2, c.window = 37;
    return c;
}
/// One kv head for all query heads, a window wider than half the sequence, RoPE base 10000,
/// hidden_act "sigmoid" (TransformerMLP ignores it: always SwiGLU), explicit intermediate_size,
/// tied embeddings, norm_eps 1e-4.
RefConfig mqaWideWindow() {
    auto c = transformer();
    c.kvHeads = 1, c.window = 100;
    c.ropeBase = 10000.0;
    c.hiddenAct = "sigmoid";
    c.intermediate = 48;
    c.tie = true;
    c.normEps = 1e-4;
    return c;
}
/// use_rope false, no window, num_kv_heads null; hidden_ratio 3.
RefConfig noRopeFullCausal() {
    auto c = transformer();
    c.rope = false;
    c.hiddenRatio = 3.0;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    Config, TransformerLlama,
    ::testing::Values(LlamaVariant{"gqa_window37", gqaWindow(), 257},
                      LlamaVariant{"mqa_window100_sigmoid_act_tied", mqaWideWindow(), 131},
                      LlamaVariant{"no_rope_full_causal", noRopeFullCausal(), 131}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TransformerLlamaInfo, ReportsItsModelTypeFamilyAndHeads) {
    const auto c = gqaWindow();
    const auto dir = test::scratchDir("fox_ref", "info");
    test::writeCheckpoint(dir, test::fox::refConfigJson(c), test::fox::randomRefWeights(c, 3u));
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().modelType, "transformer-project_fox");
    EXPECT_EQ((*model)->info().family, "transformer");
    EXPECT_EQ((*model)->info().kvHeads, 2);
    EXPECT_EQ((*model)->info().bosId, 1);
    std::filesystem::remove_all(dir);
}

struct BadCase {
    const char* name;
    nlohmann::json overrides;
    ErrorKind kind;
    const char* object;
};

/// Writes `c`'s config with the case's overrides and expects the load to fail with its kind,
/// naming config.json and the key.
void expectRefused(const RefConfig& c, const BadCase& bad) {
    auto config = test::fox::refConfigJson(c);
    config.merge_patch(bad.overrides);
    const auto dir = test::scratchDir("fox_ref", bad.name);
    test::writeCheckpoint(dir, config, test::fox::randomRefWeights(c, 3u));
    auto model = test::loadModelFrom(dir);
    ASSERT_FALSE(model) << bad.name;
    EXPECT_EQ(model.error().kind, bad.kind) << model.error().describe();
    EXPECT_EQ(model.error().object, bad.object) << model.error().describe();
    EXPECT_NE(model.error().file.find("config.json"), std::string::npos)
        << model.error().describe();
    std::filesystem::remove_all(dir);
}

class ConfigAuditTransformer : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigAuditTransformer, RefusesNamingFileAndKey) {
    expectRefused(gqaWindow(), GetParam());
}

constexpr auto F = ErrorKind::Format;
constexpr auto U = ErrorKind::Unsupported;

INSTANTIATE_TEST_SUITE_P(
    Keys, ConfigAuditTransformer,
    ::testing::Values(
        // ForgettingTransformerConfig keys are not TransformerConfig keys: no forget gate here.
        BadCase{"fox_key", {{"fgate_type", "full"}}, U, "fgate_type"},
        BadCase{"unknown_key", {{"sliding_window", 64}}, U, "sliding_window"},
        BadCase{"kv_not_dividing", {{"num_kv_heads", 3}}, F, "num_kv_heads"},
        BadCase{"kv_above_heads", {{"num_kv_heads", 8}}, F, "num_kv_heads"},
        BadCase{"window_negative", {{"window_size", -1}}, F, "window_size"},
        BadCase{"window_huge", {{"window_size", 4294967300LL}}, F, "window_size"},
        BadCase{"unknown_act", {{"hidden_act", "swiglu"}}, U, "hidden_act"},
        BadCase{"rope_type", {{"use_rope", "yes"}}, F, "use_rope"},
        BadCase{"rope_base_zero", {{"rope_base", 0}}, F, "rope_base"}),
    [](const auto& info) { return std::string(info.param.name); });

/// The official FoX parser refuses what the official FoX classes refuse.
class ConfigAuditFox : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigAuditFox, RefusesWhatTheOfficialCodeRefuses) {
    RefConfig c;
    c.outputGate = true;
    expectRefused(c, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Keys, ConfigAuditFox,
    ::testing::Values(
        // ForgettingTransformerMLP asserts hidden_act in (swish, sigmoid).
        BadCase{"mlp_silu", {{"hidden_act", "silu"}}, U, "hidden_act"},
        // The output gate asserts ogate_act in (silu, sigmoid).
        BadCase{"ogate_swish", {{"ogate_act", "swish"}}, U, "ogate_act"},
        // FusedGroupNormGated is sigmoid only.
        BadCase{"fused_silu", {{"ogate_act", "silu"}, {"use_output_norm", true}}, U, "ogate_act"},
        // GQA raises NotImplementedError in ForgettingAttentionLayer.
        BadCase{"gqa", {{"num_kv_heads", 2}}, U, "num_kv_heads"},
        BadCase{"window_key", {{"sliding_window", 8}}, U, "sliding_window"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
