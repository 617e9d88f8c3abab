// GatedFWA loading: bad configs and mismatched weights give errors naming the file and the key or
// tensor; the vocabulary padding of nanochat is honoured.
#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "gatedfwa_test_support.h"

namespace gatescope {
namespace {

using test::gatedfwa::ScratchCheckpoint;

/// Loads the fixture's weights under `config`; returns the load error (or none).
Result<std::unique_ptr<core::Model>> loadWith(const std::filesystem::path& fixture,
                                              const nlohmann::json& config,
                                              const std::string& tag) {
    ScratchCheckpoint scratch(fixture, config, tag);
    auto checkpoint = core::Checkpoint::open(scratch.dir());
    if (!checkpoint) return checkpoint.error();
    return core::loadModel(*checkpoint);
}

nlohmann::json fixtureConfig(const std::filesystem::path& dir) {
    return test::gatedfwa::readJson(dir / "config.json");
}

TEST(GatedFwaConfig, RefusesMissingModelConfig) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    auto config = fixtureConfig(dir);
    config.erase("model_config");
    auto model = loadWith(dir, config, "nomodelconfig");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Missing);
    EXPECT_EQ(model.error().object, "model_config");
    EXPECT_NE(model.error().file.find("config.json"), std::string::npos);
}

TEST(GatedFwaConfig, RefusesOptionsTheOfficialCodeCannotRun) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    struct Case {
        const char* key;
        nlohmann::json value;
        ErrorKind kind;
    };
    const std::vector<Case> cases = {
        {"n_kv_head", 2, ErrorKind::Unsupported}, {"window_size", 0, ErrorKind::Format},
        {"n_head", 3, ErrorKind::Format},  // 128 is not a multiple of 3
        {"n_layer", -1, ErrorKind::Format},       {"use_k_shift", "yes", ErrorKind::Format},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.key);
        auto config = fixtureConfig(dir);
        config["model_config"][c.key] = c.value;
        auto model = loadWith(dir, config, c.key);
        ASSERT_FALSE(model);
        EXPECT_EQ(model.error().kind, c.kind) << model.error().describe();
        EXPECT_NE(model.error().object.find(c.key), std::string::npos) << model.error().describe();
        EXPECT_NE(model.error().file.find("config.json"), std::string::npos);
    }
    auto config = fixtureConfig(dir);
    config["model_config"]["window_size"] = nullptr;
    config["model_config"]["use_forgetting_gate"] = false;
    auto model = loadWith(dir, config, "vanilla");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Unsupported);
    EXPECT_NE(model.error().message.find("vanilla GPT"), std::string::npos);
}

TEST(GatedFwaConfig, WeightsThatDisagreeWithTheConfigAreNamed) {
    GATESCOPE_REQUIRE_FIXTURE(noshift, "gatedfwa/gatedfwa-noshift");
    auto config = fixtureConfig(noshift);
    config["model_config"]["use_k_shift"] = true;
    auto model = loadWith(noshift, config, "kshift");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Missing);
    EXPECT_EQ(model.error().object, "transformer.h.0.attn.c_k.linear.weight");

    GATESCOPE_REQUIRE_FIXTURE(shift, "gatedfwa/gatedfwa");
    config = fixtureConfig(shift);
    config["model_config"]["use_forgetting_gate"] = false;
    model = loadWith(shift, config, "nogate");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Unsupported);
    EXPECT_NE(model.error().message.find("fgate_proj"), std::string::npos);

    // vocab 520 pads to 576 rows, which these weights do not have.
    config = fixtureConfig(shift);
    config["model_config"]["vocab_size"] = 520;
    model = loadWith(shift, config, "vocab520");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().kind, ErrorKind::Shape);
    EXPECT_EQ(model.error().object, "transformer.wte.weight");
    EXPECT_NE(model.error().message.find("576"), std::string::npos);
}

TEST(GatedFwaConfig, VocabularyPaddingIsDroppedFromLogits) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    // vocab 500 pads to the same 512 rows: logits keep the first 500 columns of the full run.
    auto config = fixtureConfig(dir);
    config["model_config"]["vocab_size"] = 500;
    ScratchCheckpoint scratch(dir, config, "vocab500");
    auto model = core::loadModel(core::Checkpoint::open(scratch.dir()).value());
    ASSERT_TRUE(model) << model.error().describe();
    test::Expected expected(dir / "expected.safetensors");
    auto ids = expected.ints("input_ids");
    for (auto& id : ids)
        id %= 500;
    core::RunOptions options;
    options.returnLogits = true;
    auto result = (*model)->forward(ids, {}, options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    ASSERT_EQ(result->logits.shape, (std::vector<int64_t>{int64_t(ids.size()), 500}));
    EXPECT_TRUE(std::isnan(result->loss.back()));  // no target after the last token

    auto full = core::loadModel(core::Checkpoint::open(dir).value());
    ASSERT_TRUE(full);
    auto reference = (*full)->forward(ids, {}, options, nullptr);
    ASSERT_TRUE(reference);
    std::vector<float> firstColumns;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        auto row = reference->logits.data.begin() + i * 512;
        firstColumns.insert(firstColumns.end(), row, row + 500);
    }
    EXPECT_EQ(result->logits.data, firstColumns);

    // Ids past vocab_size are refused with their position, even though the embedding has rows.
    ids[3] = 505;
    auto bad = (*model)->forward(ids, {}, options, nullptr);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, ErrorKind::Format);
    EXPECT_NE(bad.error().message.find("position 3"), std::string::npos) << bad.error().describe();
}

}  // namespace
}  // namespace gatescope
