// GatedFWA (nanochat GPTGated) checkpoints against the public code's own outputs
// (../shared/fixtures/gatedfwa): logits with and without the softcap, both losses, and per layer
// q, k, v, the log gate, the window attention probabilities and the row normalizer.
#include <map>

#include <fmt/format.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "gatedfwa_test_support.h"
#include "kernels/cpu/tile_recompute.h"

namespace gatescope {
namespace {

using test::gatedfwa::headSlice;
using test::gatedfwa::RecordingProbe;

class GatedFwaFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(GatedFwaFixture, MatchesOfficialFloat32Outputs) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("gatedfwa/") + GetParam());
    auto checkpoint = core::Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = core::loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().family, "gatedfwa");
    test::Expected expected(dir / "expected.safetensors");
    const auto ids = expected.ints("input_ids");
    const auto labels = expected.ints("labels");
    const auto modelConfig = test::gatedfwa::readJson(dir / "config.json")["model_config"];

    core::RunOptions options;
    options.returnLogits = true;
    options.recordHidden = true;
    RecordingProbe probe;
    auto result = (*model)->forward(ids, labels, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    // Worst relative error per fixture tensor (over layers and heads), printed for docs/models.md.
    std::map<std::string, double> worst;
    auto check = [&](const std::string& name, const std::vector<float>& actual,
                     const std::vector<float>& reference) {
        const double error = test::relativeError(actual, reference);
        worst[name] = std::max(worst[name], error);
        EXPECT_LT(error, 1e-4) << name;
    };
    const int64_t n = ids.size(), vocab = modelConfig["vocab_size"].get<int64_t>();

    // Returned logits are the inference output (softcap 15); the loss is the raw-logit loss.
    check("logits", result->logits.data, expected.floats("logits"));
    check("per_token_loss", result->loss, expected.floats("per_token_loss"));
    std::vector<float> cappedLoss(n);
    for (int64_t i = 0; i < n; ++i) {
        cappedLoss[i] = static_cast<float>(
            -test::gatedfwa::logSoftmaxAt(result->logits.data, i, vocab, labels[i]));
    }
    check("per_token_loss_softcapped", cappedLoss, expected.floats("per_token_loss_softcapped"));

    // Raw logits = final hidden x lm_head^T (first vocab_size rows), in float64 here.
    test::Expected weights(dir / "model.safetensors");
    const auto lmHead = weights.floats("lm_head.weight");
    const int64_t d = result->finalHidden.dim(1);
    std::vector<float> raw(n * vocab);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t t = 0; t < vocab; ++t) {
            double acc = 0;
            for (int64_t c = 0; c < d; ++c) {
                acc += double(result->finalHidden.data[i * d + c]) * double(lmHead[t * d + c]);
            }
            raw[i * vocab + t] = static_cast<float>(acc);
        }
    }
    check("logits_raw", raw, expected.floats("logits_raw"));

    const int layers = (*model)->info().layers;
    for (int l = 0; l < layers; ++l) {
        SCOPED_TRACE(fmt::format("layer {}", l));
        const auto& rec = probe.layers.at(l);
        EXPECT_EQ(rec.attention.scoreKind, core::ScoreKind::AdditiveDecay);
        EXPECT_EQ(rec.attention.window, modelConfig["window_size"].get<int64_t>());
        EXPECT_TRUE(rec.attention.hasDecay);
        EXPECT_EQ(rec.attention.extras.at("logit_softcap").get<double>(), 15.0);
        for (const char* name : {"q", "k", "v", "lse"}) {
            check(name, rec.factors.at(name).data,
                  expected.floats(fmt::format("layers.{}.{}", l, name)));
        }
        const auto logGate = expected.floats(fmt::format("layers.{}.log_fgate", l));
        ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{rec.attention.heads, n, 1}));
        check("log_fgate", rec.logRetention.data, logGate);

        const auto probs = expected.floats(fmt::format("layers.{}.probs", l));
        for (int64_t h = 0; h < rec.attention.heads; ++h) {
            auto q = headSlice(rec.factors.at("q"), h), k = headSlice(rec.factors.at("k"), h);
            auto lse = headSlice(rec.factors.at("lse"), h);
            auto c = headSlice(rec.factors.at("log_decay_cumsum"), h);
            // The stored cumulative gate is the running sum of the official log gate.
            std::vector<float> officialCumsum(n);
            double running = 0;
            for (int64_t i = 0; i < n; ++i)
                officialCumsum[i] = float(running += logGate[h * n + i]);
            check("cumsum(log_fgate)", c, officialCumsum);

            kernels::AdditiveDecayHead head;
            head.n = n;
            head.dk = rec.attention.headDim;
            head.q = q.data();
            head.k = k.data();
            head.lse = lse.data();
            head.logDecayCumsum = c.data();
            head.scale = static_cast<float>(rec.attention.scale);
            head.window = rec.attention.window;
            std::vector<float> tile(n * n);
            kernels::AdditiveDecayTileSource source(head);
            source.compute(kernels::MapKind::Attention, 0, n, 0, n, tile.data());
            std::vector<float> ref(probs.begin() + h * n * n, probs.begin() + (h + 1) * n * n);
            check("probs", tile, ref);
        }
    }
    std::string line;
    for (const auto& [name, error] : worst)
        line += fmt::format(" {} {:.1e};", name, error);
    std::printf("[ errors   ] %s:%s\n", GetParam(), line.c_str());
}

TEST_P(GatedFwaFixture, Bfloat16LandsNearOfficialBf16Loss) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("gatedfwa/") + GetParam());
    auto model = core::loadModel(core::Checkpoint::open(dir).value());
    ASSERT_TRUE(model) << model.error().describe();
    test::Expected expected(dir / "expected.safetensors");
    if (!expected.has("per_token_loss_bf16")) GTEST_SKIP() << "no per_token_loss_bf16";
    core::RunOptions options;
    options.dtype = core::ComputeDType::BFloat16;
    auto result =
        (*model)->forward(expected.ints("input_ids"), expected.ints("labels"), options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    test::expectBf16LossNearOfficial(result->loss, expected, GetParam());
}

INSTANTIATE_TEST_SUITE_P(GatedFwaOfficial, GatedFwaFixture,
                         ::testing::Values("gatedfwa", "gatedfwa-noshift"), test::fixtureCaseName);

}  // namespace
}  // namespace gatescope
