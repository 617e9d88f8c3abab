// FoX / Transformer checkpoints against the official code's own outputs (../shared/fixtures/fox).
#include <map>

#include <fmt/format.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "kernels/cpu/tile_recompute.h"

namespace gatescope {
namespace {

using test::headSlice;
using test::RecordingProbe;

class FoxFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(FoxFixture, MatchesOfficialFloat32Outputs) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("fox/") + GetParam());
    auto checkpoint = core::Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = core::loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();
    test::Expected expected(dir / "expected.safetensors");
    const auto ids = expected.ints("input_ids");
    const auto labels = expected.ints("labels");

    core::RunOptions options;
    options.returnLogits = true;
    options.recordHidden = true;
    RecordingProbe probe;
    auto result = (*model)->forward(ids, labels, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();

    EXPECT_LT(test::relativeError(result->logits.data, expected.floats("logits")), 1e-4);
    EXPECT_LT(test::relativeError(result->loss, expected.floats("per_token_loss")), 1e-4);

    const int layers = (*model)->info().layers;
    for (int l = 0; l < layers; ++l) {
        SCOPED_TRACE(fmt::format("layer {}", l));
        const auto& rec = probe.layers.at(l);
        EXPECT_LT(test::relativeError(rec.hiddenIn.data,
                                      expected.floats(fmt::format("hidden_states.{}", l))),
                  1e-4);
        for (const char* name : {"q", "k", "v", "lse"}) {
            EXPECT_LT(test::relativeError(rec.factors.at(name).data,
                                          expected.floats(fmt::format("layers.{}.{}", l, name))),
                      1e-4)
                << name;
        }
        const auto logF = expected.floats(fmt::format("layers.{}.log_fgate", l));
        if (rec.attention.hasDecay) {
            EXPECT_LT(test::relativeError(rec.logRetention.data, logF), 1e-4);
        } else {
            EXPECT_TRUE(std::all_of(logF.begin(), logF.end(), [](float x) { return x == 0; }));
        }
        // The attention probabilities, recomputed exactly from the stored O(N) factors.
        const auto probs = expected.floats(fmt::format("layers.{}.probs", l));
        const int64_t heads = rec.attention.heads, n = ids.size();
        for (int64_t h = 0; h < heads; ++h) {
            auto q = headSlice(rec.factors.at("q"), h), k = headSlice(rec.factors.at("k"), h);
            auto lse = headSlice(rec.factors.at("lse"), h);
            std::vector<float> c;
            kernels::AdditiveDecayHead head;
            head.n = n;
            head.dk = rec.attention.headDim;
            head.q = q.data();
            head.k = k.data();
            head.lse = lse.data();
            head.scale = static_cast<float>(rec.attention.scale);
            if (rec.attention.hasDecay) {
                c = headSlice(rec.factors.at("log_decay_cumsum"), h);
                head.logDecayCumsum = c.data();
            }
            std::vector<float> tile(n * n);
            kernels::AdditiveDecayTileSource source(head);
            source.compute(kernels::MapKind::Attention, 0, n, 0, n, tile.data());
            std::vector<float> ref(probs.begin() + h * n * n, probs.begin() + (h + 1) * n * n);
            EXPECT_LT(test::relativeError(tile, ref), 1e-4) << "head " << h;
        }
    }
    EXPECT_LT(test::relativeError(result->finalHidden.data,
                                  expected.floats(fmt::format("hidden_states.{}", layers))),
              1e-4);
}

TEST_P(FoxFixture, Bfloat16LandsNearOfficialBf16Loss) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("fox/") + GetParam());
    auto model = core::loadModel(core::Checkpoint::open(dir).value());
    ASSERT_TRUE(model) << model.error().describe();
    test::Expected expected(dir / "expected.safetensors");
    core::RunOptions options;
    options.dtype = core::ComputeDType::BFloat16;
    auto result =
        (*model)->forward(expected.ints("input_ids"), expected.ints("labels"), options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    test::expectBf16LossNearOfficial(result->loss, expected, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Official, FoxFixture,
                         ::testing::Values("fox-pro", "fox-llama", "transformer-pro-rope"),
                         test::fixtureCaseName);

}  // namespace
}  // namespace gatescope
