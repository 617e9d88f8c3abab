// GSA config options that change the math, against a float64 model written from the formulas
// (gsa_reference_model.h), on random checkpoints; and clear errors for what we refuse.
#include <cstdio>
#include <filesystem>
#include <random>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/model/model.h"
#include "gsa_reference_model.h"

namespace gatescope {
namespace {

std::filesystem::path tempDir(const std::string& name) {
    return test::scratchDir("gsa", name);
}

Result<std::unique_ptr<core::Model>> load(const std::filesystem::path& dir) {
    return test::loadModelFrom(dir);
}

struct GsaOptionCase {
    const char* name;
    test::GsaRefConfig config;
    nlohmann::json overrides;
    int64_t n = 150;  ///< tokens; 150 is three kernel chunks of 64, the last one partial
};

class GsaOptions : public ::testing::TestWithParam<GsaOptionCase> {};

TEST_P(GsaOptions, MatchesFloat64Model) {
    const auto& param = GetParam();
    const auto weights = test::randomGsaWeights(param.config, 17u);
    const auto dir = tempDir(param.name);
    test::writeGsaCheckpoint(dir, param.config, weights, param.overrides);
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const auto ids = test::randomIds(param.n, param.config.vocab, 5u);
    core::RunOptions options;
    options.returnLogits = true;
    auto result = (*model)->forward(ids, {}, options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::gsaReferenceLogits(param.config, weights, ids);
    double diff = 0.0, scale = 1e-6;
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (int v = 0; v < param.config.vocab; ++v) {
            diff = std::max(diff,
                            std::abs(result->logits.data[t * param.config.vocab + v] - ref[t][v]));
            scale = std::max(scale, std::abs(ref[t][v]));
        }
    std::printf("[ options  ] %s (N %lld): logits rel %.1e\n", param.name,
                static_cast<long long>(param.n), diff / scale);
    EXPECT_LT(diff / scale, 1e-4) << param.name;
    std::filesystem::remove_all(dir);
}

test::GsaRefConfig base() {
    return {};
}
test::GsaRefConfig withGqaRelu() {
    auto c = base();
    c.heads = 4, c.kvHeads = 2, c.hkd = 8, c.hvd = 8, c.slots = 5, c.tau = 4.0;
    c.featureMap = "relu";
    return c;
}
test::GsaRefConfig withT2rConv() {
    auto c = base();
    c.featureMap = "t2r", c.convSize = 3;
    return c;
}
test::GsaRefConfig withExpand() {
    auto c = base();  // expand_k 0.5, expand_v 2 (legal without a g_norm weight), MQA, tied head
    c.heads = 2, c.kvHeads = 1, c.hkd = 8, c.hvd = 32, c.slots = 8;
    c.affine = false, c.tie = true;
    return c;
}
test::GsaRefConfig withLegacyNames() {
    auto c = base();
    c.legacyNames = true, c.convSize = 4;
    return c;
}

test::GsaRefConfig withNormEps() {
    auto c = base();  // norm_eps reaches attn_norm, mlp_norm and the final norm, not g_norm
    c.eps = 0.25;
    return c;
}
test::GsaRefConfig withHiddenRatio() {
    auto c = base();  // int(32 * 14 * 2 / 3) = 298, rounded up to 512 (the default ratio 4: 256)
    c.inter = test::officialIntermediateSize(c.d, 14.0);
    return c;
}
test::GsaRefConfig withIntermediateSize() {
    auto c = base();  // an explicit size wins over hidden_ratio and is not rounded
    c.inter = 72;
    return c;
}
test::GsaRefConfig withSlotsGqaExpand() {
    auto c = base();  // 4 query heads on 2 kv heads, key dim 16 (head 4), value dim 32 (head 8)
    c.heads = 4, c.kvHeads = 2, c.hkd = 4, c.hvd = 8, c.slots = 7, c.tau = 3.0;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    GsaOfficial, GsaOptions,
    ::testing::Values(GsaOptionCase{"gqa_relu_tau4", withGqaRelu(), {}},
                      GsaOptionCase{"t2r_short_conv", withT2rConv(), {}},
                      // num_slots null means head_k_dim (8); the ignored
                      // options must not change anything.
                      GsaOptionCase{"expand_mqa_tied",
                                    withExpand(),
                                    {{"num_slots", nullptr},
                                     {"clamp_min", -1.0},
                                     {"clamp_max", 1.0},
                                     {"use_output_gate", true},
                                     {"use_norm", false}}},
                      GsaOptionCase{"paper_era_names", withLegacyNames(), {}},
                      GsaOptionCase{"norm_eps", withNormEps(), {}, 200},
                      GsaOptionCase{"hidden_ratio",
                                    withHiddenRatio(),
                                    {{"intermediate_size", nullptr}, {"hidden_ratio", 14}},
                                    200},
                      GsaOptionCase{
                          "intermediate_size", withIntermediateSize(), {{"hidden_ratio", 2}}, 200},
                      // num_slots 7 != head_k_dim 4, GQA, expand_k 0.5 !=
                      // expand_v 1, gate_logit_normalizer 3.
                      GsaOptionCase{"slots_gqa_expand_k", withSlotsGqaExpand(), {}, 200}),
    [](const auto& info) { return std::string(info.param.name); });

// What we refuse, and where the error points.
struct GsaBadCase {
    const char* name;
    nlohmann::json overrides;
    ErrorKind kind;
    const char* object;
};

class GsaBadConfig : public ::testing::TestWithParam<GsaBadCase> {};

TEST_P(GsaBadConfig, IsRefusedNamingTheKey) {
    const auto& param = GetParam();
    auto config = base();
    const auto dir = tempDir(param.name);
    test::writeGsaCheckpoint(dir, config, test::randomGsaWeights(config, 3u), param.overrides);
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, param.kind) << model.error().describe();
    EXPECT_EQ(model.error().object, param.object) << model.error().describe();
    EXPECT_NE(model.error().file.find("config.json"), std::string::npos)
        << model.error().describe();
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    GsaRefused, GsaBadConfig,
    ::testing::Values(
        GsaBadCase{"hybrid",
                   {{"attn", {{"layers", {0}}, {"num_heads", 2}}}},
                   ErrorKind::Unsupported,
                   "attn"},
        GsaBadCase{"feature_map", {{"feature_map", "elu"}}, ErrorKind::Unsupported, "feature_map"},
        GsaBadCase{
            "null_feature_map", {{"feature_map", nullptr}}, ErrorKind::Unsupported, "feature_map"},
        GsaBadCase{"kv_heads", {{"num_kv_heads", 3}}, ErrorKind::Format, "num_kv_heads"},
        GsaBadCase{"expand_v_affine", {{"expand_v", 2.0}}, ErrorKind::Unsupported, "expand_v"},
        GsaBadCase{"expand_k_split", {{"expand_k", 0.3}}, ErrorKind::Format, "expand_k"},
        GsaBadCase{"hidden_act", {{"hidden_act", "gelu"}}, ErrorKind::Unsupported, "hidden_act"},
        GsaBadCase{"normalizer",
                   {{"gate_logit_normalizer", 0}},
                   ErrorKind::Format,
                   "gate_logit_normalizer"},
        GsaBadCase{"slots_type", {{"num_slots", "many"}}, ErrorKind::Format, "num_slots"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(GsaWeights, MissingMisshapenAndUnexpectedTensorsAreNamed) {
    auto config = base();
    const std::string f = "model.layers.1.attn.f_proj.weight";
    {
        auto weights = test::randomGsaWeights(config, 3u);
        weights.erase(f);
        const auto dir = tempDir("missing");
        test::writeGsaCheckpoint(dir, config, weights);
        auto model = load(dir);
        ASSERT_FALSE(model);
        EXPECT_EQ(model.error().kind, ErrorKind::Missing);
        EXPECT_EQ(model.error().object, f);
        std::filesystem::remove_all(dir);
    }
    {
        auto weights = test::randomGsaWeights(config, 3u);
        weights[f].shape = {config.slots, config.kvHeads * config.d};  // same numel, wrong shape
        const auto dir = tempDir("shape");
        test::writeGsaCheckpoint(dir, config, weights);
        auto model = load(dir);
        ASSERT_FALSE(model);
        EXPECT_EQ(model.error().kind, ErrorKind::Shape);
        EXPECT_EQ(model.error().object, f);
        EXPECT_NE(model.error().file.find("model.safetensors"), std::string::npos);
        std::filesystem::remove_all(dir);
    }
    {
        auto weights = test::randomGsaWeights(config, 3u);
        weights["model.layers.0.attn.q_conv1d.weight"] = {{config.heads * config.hkd, 1, 4},
                                                          std::vector<float>(32 * 4, 0.5f)};
        const auto dir = tempDir("unexpected");
        test::writeGsaCheckpoint(dir, config, weights);  // use_short_conv is false
        auto model = load(dir);
        ASSERT_FALSE(model);
        EXPECT_EQ(model.error().kind, ErrorKind::Unsupported);
        EXPECT_NE(model.error().message.find("q_conv1d"), std::string::npos);
        std::filesystem::remove_all(dir);
    }
}

TEST(GsaForwardErrors, TokenOutsideTheVocabularyIsAnError) {
    auto config = base();
    const auto dir = tempDir("vocab");
    test::writeGsaCheckpoint(dir, config, test::randomGsaWeights(config, 3u));
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    std::vector<int32_t> ids = {1, 2, config.vocab};
    auto result = (*model)->forward(ids, {}, {}, nullptr);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("outside the vocabulary"), std::string::npos);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatescope
