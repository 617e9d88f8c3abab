// Wall Attention models (model_type "wall") against the float64 model written from the formulas
// (wall_reference_model.h), for every config option that changes the math; what the layer records;
// and the errors for bad configs and weights.
#include <filesystem>
#include <random>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/maps/head_maps.h"
#include "core/model/model.h"
#include "wall_reference_model.h"

namespace gatescope {
namespace {

std::filesystem::path tempDir(const std::string& name) {
    return test::scratchDir("wall", name);
}

Result<std::unique_ptr<core::Model>> load(const std::filesystem::path& dir) {
    return test::loadModelFrom(dir);
}

/// Keeps layer 0's record.
struct KeepFirst : core::Probe {
    bool wantsLayer(int layer) const override { return layer == 0; }
    void onLayer(core::LayerRecord&& record) override { first = std::move(record); }
    core::LayerRecord first;
};

struct WallVariant {
    WallVariant(const char* name, test::WallRefConfig config, int64_t n = 150,
                std::vector<int64_t> starts = {})
        : name(name), config(config), n(n), starts(std::move(starts)) {}
    const char* name;
    test::WallRefConfig config;
    int64_t n;                    ///< 150: two full 64-token anchor blocks and a partial one
    std::vector<int64_t> starts;  ///< packed documents (empty: one)
};

void PrintTo(const WallVariant& v, std::ostream* os) {
    *os << v.name;
}

class WallModel : public ::testing::TestWithParam<WallVariant> {};

TEST_P(WallModel, MatchesFloat64ModelAndRecordsItsGates) {
    const auto& c = GetParam().config;
    const auto weights = test::randomWallWeights(c, 21u);
    const auto dir = tempDir(GetParam().name);
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().family, "wall");
    const auto ids = test::randomIds(GetParam().n, c.vocab, 5u);
    core::RunOptions options;
    options.returnLogits = true;
    options.documentStarts = GetParam().starts;
    KeepFirst probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::wallReference(c, weights, ids, GetParam().starts);
    double diff = 0.0, scale = 1e-6;
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (int v = 0; v < c.vocab; ++v) {
            diff =
                std::max(diff, std::abs(result->logits.data[t * c.vocab + v] - ref.logits[t][v]));
            scale = std::max(scale, std::abs(ref.logits[t][v]));
        }
    EXPECT_LT(diff / scale, 1e-4);
    RecordProperty("logits_max_rel_err", fmt::format("{:.3e}", diff / scale));

    // Layer 0's record: per-channel log retention per query head, and attention tiles
    // recomputed from the stored factors through the same path traces use.
    const auto& rec = probe.first;
    ASSERT_EQ(rec.attention.scoreKind, core::ScoreKind::Wall);
    const int64_t n = ids.size();
    if (c.gateDim > 0) {
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads, n, c.gateDim}));
        double gateDiff = 0.0;
        for (int h = 0; h < c.heads; ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int ch = 0; ch < c.gateDim; ++ch)
                    gateDiff = std::max(
                        gateDiff, std::abs(rec.logRetention.data[(h * n + t) * c.gateDim + ch] -
                                           ref.logGates0[h][t][ch]));
        EXPECT_LT(gateDiff, 1e-5);
    } else if (c.scalarGate) {
        // Without per-channel gates the scalar gate is the one retention channel.
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads, n, 1}));
        double gateDiff = 0.0;
        for (int h = 0; h < c.heads; ++h)
            for (int64_t t = 0; t < n; ++t)
                gateDiff = std::max(
                    gateDiff, std::abs(rec.logRetention.data[h * n + t] - ref.scalarGates0[h][t]));
        EXPECT_LT(gateDiff, 1e-5);
    } else {
        EXPECT_TRUE(rec.logRetention.data.empty());
    }
    EXPECT_EQ(rec.attention.window, c.window);
    EXPECT_EQ(rec.attention.hasDecay, c.gateDim > 0 || c.scalarGate);
    const core::MapSpec spec = core::mapSpecOf(rec.attention);
    for (const auto& name : core::requiredFactors(spec))
        ASSERT_TRUE(rec.factors.count(name)) << name;
    for (int h = 0; h < c.heads; ++h) {
        core::HeadFactorSet set;
        set.n = n;
        for (const auto& [name, array] : rec.factors) {
            const int64_t stored = array.shape[0],
                          width = array.shape.size() == 3 ? array.shape[2] : 1;
            const int64_t index = h * stored / c.heads;  // kv / gate heads serve their group
            const auto begin = array.data.begin() + index * n * width;
            set.add(name, std::vector<float>(begin, begin + n * width), width);
        }
        auto source = core::makeTileSource(spec, set);
        ASSERT_TRUE(source) << source.error().describe();
        std::vector<float> tile(n * n);
        (*source)->compute(kernels::MapKind::Attention, 0, n, 0, n, tile.data());
        double probDiff = 0.0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                probDiff = std::max(probDiff, std::abs(tile[i * n + j] - ref.probs0[h][i][j]));
        // P is stored as float: with |P| in the hundreds (strong gates) its rounding alone moves
        // probabilities by ~1e-5.
        EXPECT_LT(probDiff, 5e-5) << "head " << h;
        RecordProperty(fmt::format("probs_max_abs_err_head{}", h), fmt::format("{:.3e}", probDiff));
        if (!spec.hasDecay) continue;
        (*source)->compute(kernels::MapKind::Decay, 0, n, 0, n, tile.data());
        double decayDiff = 0.0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                decayDiff = std::max(decayDiff, std::abs(tile[i * n + j] - ref.decay0[h][i][j]));
        EXPECT_LT(decayDiff, 5e-5) << "head " << h;
        RecordProperty(fmt::format("decay_max_abs_err_head{}", h),
                       fmt::format("{:.3e}", decayDiff));
    }
    std::filesystem::remove_all(dir);
}

test::WallRefConfig gqaTied() {
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true;
    return c;
}
test::WallRefConfig subdim() {
    test::WallRefConfig c;
    c.headDim = 16, c.heads = 2, c.kvHeads = 2, c.gateDim = 6;
    return c;
}
test::WallRefConfig strongGatesNoRopeNoClamp() {
    test::WallRefConfig c;
    c.rope = false, c.softClamp = 0.0, c.gateBias = -1.5;
    return c;
}
test::WallRefConfig ungatedTiedEmbeddings() {
    test::WallRefConfig c;
    c.gateDim = 0, c.tieEmbeddings = true, c.kvHeads = 1;
    return c;
}
/// The numeric options at values far from their defaults (eps large enough to move every norm).
test::WallRefConfig normEpsRopeTheta() {
    test::WallRefConfig c;
    c.eps = 0.25, c.ropeTheta = 500000.0;
    return c;
}
/// One option of the authors' reference at a time (or several), on GQA: 4 query heads, 2 KV heads.
test::WallRefConfig gqaWith(int window, bool sink, bool scalarGate) {
    test::WallRefConfig c;
    c.kvHeads = 2, c.window = window, c.sink = sink, c.scalarGate = scalarGate;
    return c;
}
test::WallRefConfig scalarGateOnly() {
    test::WallRefConfig c;
    c.gateDim = 0, c.scalarGate = true, c.scalarBias = 0.0;
    return c;
}
/// Window + sink + scalar gate + GQA + subdim gating, tied or untied gates, with or without RoPE.
test::WallRefConfig everything(int window, bool tied, bool rope) {
    test::WallRefConfig c;
    c.headDim = 16, c.heads = 4, c.kvHeads = 2, c.gateDim = 6, c.d = 32;
    c.window = window, c.sink = true, c.scalarGate = true, c.tieGates = tied, c.rope = rope;
    c.gateBias = 0.5;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    Options, WallModel,
    ::testing::Values(
        WallVariant{"default", {}}, WallVariant{"gqa_tied_gates", gqaTied()},
        WallVariant{"subdim", subdim()},
        WallVariant{"no_rope_no_clamp", strongGatesNoRopeNoClamp()},
        WallVariant{"ungated_mqa_tied_embeddings", ungatedTiedEmbeddings()},
        WallVariant{"norm_eps_rope_theta", normEpsRopeTheta(), 131},
        // Each option of the reference alone, with GQA, at sizes that are no multiple of the
        // 64-token blocks; a window of 1 (the diagonal only) and one past the input.
        WallVariant{"window1_gqa_n53", gqaWith(1, false, false), 53},
        WallVariant{"window17_gqa_n53", gqaWith(17, false, false), 53},
        WallVariant{"window64_gqa_n131", gqaWith(64, false, false), 131},
        WallVariant{"window200_gqa_n131", gqaWith(200, false, false), 131},
        WallVariant{"window100_gqa_n300", gqaWith(100, false, false), 300},
        WallVariant{"sink_gqa_n53", gqaWith(0, true, false), 53},
        WallVariant{"sink_gqa_n300", gqaWith(0, true, false), 300},
        WallVariant{"scalar_gate_gqa_n131", gqaWith(0, false, true), 131},
        WallVariant{"scalar_gate_gqa_n300", gqaWith(0, false, true), 300},
        WallVariant{"scalar_gate_ungated_n53", scalarGateOnly(), 53},
        WallVariant{"documents_gqa_n131", gqaWith(0, false, false), 131, {0, 1, 50, 64}},
        WallVariant{"documents_gqa_n300", gqaWith(0, false, false), 300, {0, 64, 65, 299}},
        WallVariant{"sink_scalar_gate_gqa_n131", gqaWith(0, true, true), 131},
        // Everything together.
        WallVariant{"all_untied_rope_w64_n300", everything(64, false, true), 300},
        WallVariant{"all_tied_norope_w17_n300_documents",
                    everything(17, true, false),
                    300,
                    {0, 77, 78, 200}},
        WallVariant{
            "all_tied_rope_w64_n131_documents", everything(64, true, true), 131, {0, 40, 100}}),
    [](const auto& info) { return std::string(info.param.name); });

// A packed document's logits are those of the document run alone: no attention crosses the
// boundary, and rotary positions and cumulative gates restart.
TEST(WallDocuments, EachDocumentIsRunAsIfAlone) {
    const auto c = everything(17, false, true);
    const auto weights = test::randomWallWeights(c, 23u);
    const auto dir = tempDir("documents_alone");
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_TRUE((*model)->info().packedDocuments);
    const auto ids = test::randomIds(140, c.vocab, 9u);
    const std::vector<int64_t> starts = {0, 61, 62, 130};
    core::RunOptions options;
    options.returnLogits = true;
    options.documentStarts = starts;
    auto packed = (*model)->forward(ids, {}, options, nullptr);
    ASSERT_TRUE(packed) << packed.error().describe();
    for (std::size_t d = 0; d < starts.size(); ++d) {
        const int64_t a = starts[d], b = d + 1 < starts.size() ? starts[d + 1] : 140;
        core::RunOptions alone;
        alone.returnLogits = true;
        const std::vector<int32_t> slice(ids.begin() + a, ids.begin() + b);
        auto single = (*model)->forward(slice, {}, alone, nullptr);
        ASSERT_TRUE(single) << single.error().describe();
        double diff = 0.0, scale = 1e-6;
        for (int64_t t = 0; t < b - a; ++t)
            for (int v = 0; v < c.vocab; ++v) {
                const float want = single->logits.data[t * c.vocab + v];
                diff = std::max(
                    diff, double(std::abs(packed->logits.data[(a + t) * c.vocab + v] - want)));
                scale = std::max(scale, double(std::abs(want)));
            }
        EXPECT_LT(diff / scale, 1e-5) << "document " << d;
    }
    std::filesystem::remove_all(dir);
}

TEST(WallDocuments, MalformedStartsAreAUsageError) {
    const test::WallRefConfig c;
    const auto dir = tempDir("documents_bad");
    test::writeCheckpoint(dir, test::wallConfigJson(c), test::randomWallWeights(c, 2u));
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const auto ids = test::randomIds(20, c.vocab, 1u);
    for (const std::vector<int64_t>& starts :
         {std::vector<int64_t>{0, 5, 5}, std::vector<int64_t>{1, 5}, std::vector<int64_t>{0, 20}}) {
        core::RunOptions options;
        options.documentStarts = starts;
        auto result = (*model)->forward(ids, {}, options, nullptr);
        ASSERT_FALSE(result);
        EXPECT_EQ(result.error().kind, ErrorKind::Usage) << result.error().describe();
        EXPECT_EQ(result.error().object, "documents");
    }
    std::filesystem::remove_all(dir);
}

struct WallBadCase {
    const char* name;
    nlohmann::json overrides;
    const char* object;
};

class WallBadConfig : public ::testing::TestWithParam<WallBadCase> {};

TEST_P(WallBadConfig, IsRefusedNamingFileAndKey) {
    const test::WallRefConfig c;
    auto config = test::wallConfigJson(c);
    for (const auto& [key, value] : GetParam().overrides.items())
        config[key] = value;
    const auto dir = tempDir(GetParam().name);
    test::writeCheckpoint(dir, config, test::randomWallWeights(c, 3u));
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().object, GetParam().object) << model.error().describe();
    EXPECT_NE(model.error().file.find("config.json"), std::string::npos)
        << model.error().describe();
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Refused, WallBadConfig,
    ::testing::Values(WallBadCase{"gate_dim_too_large", {{"gate_dim", 9}}, "gate_dim"},
                      WallBadCase{"kv_heads", {{"num_kv_heads", 3}}, "num_kv_heads"},
                      WallBadCase{"negative_clamp", {{"gate_soft_clamp", -1.0}}, "gate_soft_clamp"},
                      WallBadCase{"odd_rope", {{"head_dim", 7}, {"gate_dim", 7}}, "head_dim"},
                      WallBadCase{"act", {{"hidden_act", "gelu"}}, "hidden_act"},
                      WallBadCase{"window_zero", {{"window_size", 0}}, "window_size"},
                      WallBadCase{"window_negative", {{"window_size", -64}}, "window_size"},
                      WallBadCase{"window_not_integer", {{"window_size", "64"}}, "window_size"},
                      WallBadCase{"unknown_key", {{"qk_norm", true}}, "qk_norm"},
                      WallBadCase{"unknown_null_key", {{"attn_mode", nullptr}}, "attn_mode"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(WallConfig, UnknownKeyIsUnsupported) {
    const test::WallRefConfig c;
    auto config = test::wallConfigJson(c);
    config["sliding_window"] = 64;  // not our key: silently ignoring it would trace full-causal
    const auto dir = tempDir("unknown_key");
    test::writeCheckpoint(dir, config, test::randomWallWeights(c, 3u));
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Unsupported) << model.error().describe();
    EXPECT_EQ(model.error().object, "sliding_window");
    EXPECT_EQ(std::filesystem::path(model.error().file).filename(), "config.json");
    std::filesystem::remove_all(dir);
}

TEST(WallConfig, MetadataKeysAreAccepted) {
    const test::WallRefConfig c;
    auto config = test::wallConfigJson(c);
    config["architectures"] = {"WallForCausalLM"};
    config["transformers_version"] = "4.46.0";
    config["torch_dtype"] = "bfloat16";
    config["gate_bias_init"] = {6.0, 8.0};
    config["gatescope_tokenizer"] = "byte";
    const auto dir = tempDir("metadata_keys");
    test::writeCheckpoint(dir, config, test::randomWallWeights(c, 3u));
    auto model = load(dir);
    EXPECT_TRUE(model) << model.error().describe();
    std::filesystem::remove_all(dir);
}

TEST(WallWeights, OptionTensorsAreRequiredAndOnlyWhenEnabled) {
    test::WallRefConfig c;
    c.sink = true, c.scalarGate = true;
    const auto weights = test::randomWallWeights(c, 6u);
    for (const char* name : {"model.layers.1.attn.sink_bias", "model.layers.0.attn.f_proj.bias"}) {
        auto missing = weights;
        missing.erase(name);
        const auto dir = tempDir("missing_option_tensor");
        test::writeCheckpoint(dir, test::wallConfigJson(c), missing);
        auto model = load(dir);
        ASSERT_FALSE(model);
        EXPECT_EQ(model.error().kind, ErrorKind::Missing) << model.error().describe();
        EXPECT_EQ(model.error().object, name);
        std::filesystem::remove_all(dir);
    }
    // The same tensors with the options off are unexpected: refused, never ignored.
    test::WallRefConfig off = c;
    off.sink = false, off.scalarGate = false;
    const auto dir = tempDir("unexpected_option_tensor");
    test::writeCheckpoint(dir, test::wallConfigJson(off), weights);
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_NE(model.error().describe().find("sink_bias"), std::string::npos)
        << model.error().describe();
    std::filesystem::remove_all(dir);
}

TEST(WallWeights, MissingGateBiasIsNamed) {
    const test::WallRefConfig c;
    auto weights = test::randomWallWeights(c, 4u);
    weights.erase("model.layers.1.attn.g_proj.bias");
    const auto dir = tempDir("missing_bias");
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Missing);
    EXPECT_EQ(model.error().object, "model.layers.1.attn.g_proj.bias");
    // A missing tensor is missing from the whole (possibly sharded) checkpoint: its folder.
    EXPECT_EQ(std::filesystem::path(model.error().file), dir) << model.error().describe();
    std::filesystem::remove_all(dir);
}

TEST(WallWeights, GateOfTheWrongWidthIsNamed) {
    test::WallRefConfig c;
    c.kvHeads = 2;  // untied: g_proj has one gate vector per query head
    const auto weights = test::randomWallWeights(c, 4u);
    c.tieGates = true;  // the config now expects one per KV head
    const auto dir = tempDir("gate_width");
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = load(dir);
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Shape) << model.error().describe();
    EXPECT_EQ(model.error().object, "model.layers.0.attn.g_proj.weight");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatescope
