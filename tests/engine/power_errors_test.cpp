// Bad power checkpoints and inputs give errors that name the file and the problem.
#include <gtest/gtest.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "power_test_support.h"

namespace gatescope {
namespace {

using PowerRefConfig = test::power::RefConfig;

struct Broken {
    test::power::Weights weights;
    std::map<std::string, std::vector<int64_t>> shapes;
    nlohmann::json config;
    Broken() {
        const PowerRefConfig c{64, 1, 2, 1, 8, 16, true, true, false, 2};
        test::power::randomWeights(c, 7, weights, shapes);
        config = test::power::configJson(c);
    }
    Error load(const std::string& tag) const {
        test::power::ScratchCheckpoint scratch(weights, shapes, config, tag);
        auto checkpoint = core::Checkpoint::open(scratch.dir());
        EXPECT_TRUE(checkpoint) << checkpoint.error().describe();
        auto model = core::loadModel(*checkpoint);
        EXPECT_FALSE(model) << "loaded a broken checkpoint: " << tag;
        return model ? Error{} : model.error();
    }
};

TEST(PowerErrors, OddDegreeIsRefused) {
    Broken b;
    b.config["model_config"]["degree"] = 3;
    const auto e = b.load("odd_degree");
    EXPECT_EQ(e.kind, ErrorKind::Unsupported);
    EXPECT_EQ(e.object, "model_config.degree");
    EXPECT_NE(e.file.find("config.json"), std::string::npos);
    EXPECT_NE(e.message.find("even"), std::string::npos);
}

TEST(PowerErrors, MissingModelConfig) {
    Broken b;
    b.config.erase("model_config");
    b.config["n_layer"] = 1;
    const auto e = b.load("no_model_config");
    EXPECT_EQ(e.kind, ErrorKind::Missing);
    EXPECT_EQ(e.object, "model_config");
}

TEST(PowerErrors, UnknownKernelAndWindow) {
    Broken b;
    b.config["model_config"]["attention_kernel"] = "flash";
    EXPECT_EQ(b.load("kernel").object, "model_config.attention_kernel");
    Broken w;
    w.config["model_config"]["window_size"] = 128;
    EXPECT_EQ(w.load("window").object, "model_config.window_size");
    Broken s;
    s.config["model_config"]["n_head"] = 0;
    EXPECT_EQ(s.load("zero_heads").kind, ErrorKind::Format);
}

TEST(PowerErrors, GateColumnsMissingWhenGatingIsOn) {
    Broken b;
    // Weights of an ungated model under a gated config: c_attn lacks the n_head gate rows.
    b.config["model_config"]["disable_gating"] = false;
    auto& w = b.weights["transformer.h.0.attn.c_attn.weight"];
    w.resize(w.size() - 2 * 16);
    b.shapes["transformer.h.0.attn.c_attn.weight"][0] -= 2;
    const auto e = b.load("gate_rows");
    EXPECT_EQ(e.kind, ErrorKind::Shape);
    EXPECT_EQ(e.object, "transformer.h.0.attn.c_attn.weight");
    EXPECT_NE(e.message.find("[50, 16]"), std::string::npos) << e.message;
}

TEST(PowerErrors, UntiedHeadAndStrayTensors) {
    Broken b;
    b.weights["lm_head.weight"][5] += 1.0f;
    const auto e = b.load("untied");
    EXPECT_EQ(e.object, "lm_head.weight");
    EXPECT_NE(e.message.find("ties"), std::string::npos);

    Broken extra;
    extra.weights["transformer.wpe.weight"] = std::vector<float>(16 * 4, 0.5f);
    extra.shapes["transformer.wpe.weight"] = {4, 16};
    const auto stray = extra.load("stray");
    EXPECT_EQ(stray.kind, ErrorKind::Unsupported);
    EXPECT_EQ(stray.object, "transformer.wpe.weight");
}

TEST(PowerErrors, TokenOutsideVocabulary) {
    Broken b;
    test::power::ScratchCheckpoint scratch(b.weights, b.shapes, b.config, "vocab");
    auto model = core::loadModel(core::Checkpoint::open(scratch.dir()).value());
    ASSERT_TRUE(model) << model.error().describe();
    const std::vector<int32_t> ids = {1, 2, 64};
    auto result = (*model)->forward(ids, {}, {}, nullptr);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("outside the vocabulary"), std::string::npos);
}

}  // namespace
}  // namespace gatescope
