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

struct Variant {
    const char* name;
    test::WallRefConfig config;
};

class WallModel : public ::testing::TestWithParam<Variant> {};

TEST_P(WallModel, MatchesFloat64ModelAndRecordsItsGates) {
    const auto& c = GetParam().config;
    const auto weights = test::randomWallWeights(c, 21u);
    const auto dir = tempDir(GetParam().name);
    test::writeCheckpoint(dir, test::wallConfigJson(c), weights);
    auto model = load(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().family, "wall");
    // 150 tokens: two full 64-token anchor blocks and a partial one.
    const auto ids = test::randomIds(150, c.vocab, 5u);
    core::RunOptions options;
    options.returnLogits = true;
    KeepFirst probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::wallReference(c, weights, ids);
    double diff = 0.0, scale = 1e-6;
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (int v = 0; v < c.vocab; ++v) {
            diff =
                std::max(diff, std::abs(result->logits.data[t * c.vocab + v] - ref.logits[t][v]));
            scale = std::max(scale, std::abs(ref.logits[t][v]));
        }
    EXPECT_LT(diff / scale, 1e-4);

    // Layer 0's record: per-channel log retention per query head, and attention tiles
    // recomputed from the stored factors through the same path traces use.
    const auto& rec = probe.first;
    ASSERT_EQ(rec.attention.scoreKind, "wall");
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
    } else {
        EXPECT_TRUE(rec.logRetention.data.empty());
    }
    core::MapSpec spec;
    spec.scoreKind = rec.attention.scoreKind;
    spec.scale = rec.attention.scale;
    spec.hasDecay = rec.attention.hasDecay;
    spec.extras = rec.attention.extras;
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

INSTANTIATE_TEST_SUITE_P(
    Options, WallModel,
    ::testing::Values(Variant{"default", {}}, Variant{"gqa_tied_gates", gqaTied()},
                      Variant{"subdim", subdim()},
                      Variant{"no_rope_no_clamp", strongGatesNoRopeNoClamp()},
                      Variant{"ungated_mqa_tied_embeddings", ungatedTiedEmbeddings()}),
    [](const auto& info) { return std::string(info.param.name); });

struct BadCase {
    const char* name;
    nlohmann::json overrides;
    const char* object;
};

class WallBadConfig : public ::testing::TestWithParam<BadCase> {};

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
    ::testing::Values(BadCase{"gate_dim_too_large", {{"gate_dim", 9}}, "gate_dim"},
                      BadCase{"kv_heads", {{"num_kv_heads", 3}}, "num_kv_heads"},
                      BadCase{"negative_clamp", {{"gate_soft_clamp", -1.0}}, "gate_soft_clamp"},
                      BadCase{"odd_rope", {{"head_dim", 7}, {"gate_dim", 7}}, "head_dim"},
                      BadCase{"act", {{"hidden_act", "gelu"}}, "hidden_act"}),
    [](const auto& info) { return std::string(info.param.name); });

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
