// Format v3 derives the decay pyramid of additive-decay layers from log_decay_cumsum instead of
// storing it. CPU traces of the same forward written both ways (TraceWriterOptions::
// deriveDecayPyramids off: the v2 layout, the pyramid builders' cells stored): every tile of every
// level, max and mean, every head, read through TraceReader, agrees to float32 rounding, at a
// length that is not a power of two. FoX, the GatedFWA fixture (window 24) and
// the Transformer (no forget gate: no decay map either way).
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/model.h"
#include "data/trace/manifest.h"
#include "data/trace/trace_reader.h"
#include "data/trace/trace_writer.h"
#include "engine/trace/layer_recorder.h"
#include "fixture_support.h"
#include "fox_reference_checkpoint.h"
#include "reference_model_support.h"

namespace gatescope {
namespace {

constexpr int64_t kDerivedTokens = 1000;  // pyramid levels 0..2 (sides 1000, 500, 250)

void writeTrace(core::Model& model, const std::vector<int32_t>& ids, bool derive,
                const std::filesystem::path& out) {
    core::TraceRequest request;
    request.threads = 2;
    request.writer.deriveDecayPyramids = derive;
    auto writer = data::TraceWriter::create(out, request.writer);
    ASSERT_TRUE(writer) << writer.error().describe();
    data::TokenTable table;
    table.ids = ids;
    table.text.assign(ids.size(), "");
    for (size_t i = 0; i < ids.size(); ++i)
        table.byteOffsets.push_back({0, 0});
    ASSERT_TRUE((*writer)->writeTokens(table));
    core::LayerRecorder recorder(**writer, request, nullptr, {});
    core::RunOptions run;
    run.threads = 2;
    auto result = model.forward(ids, {}, run, &recorder);
    ASSERT_TRUE(result) << result.error().describe();
    ASSERT_TRUE(recorder.finish());
    data::Manifest manifest;
    manifest.modelType = model.info().family;
    ASSERT_TRUE((*writer)->writeManifest(manifest.toJson()));
    data::PerTokenResults rows{std::vector<float>(ids.size(), 0.0f),
                               std::vector<int32_t>(ids.size(), 0),
                               std::vector<float>(ids.size(), 0.0f)};
    ASSERT_TRUE((*writer)->writePerToken(rows));
    auto committed = (*writer)->commit();
    ASSERT_TRUE(committed) << committed.error().describe();
}

/// Writes both traces and compares their decay pyramids; returns the number of derived layers.
int expectDerivedEqualsStored(const std::filesystem::path& modelDir, int vocab,
                              const std::string& tag) {
    auto model = test::loadModelFrom(modelDir);
    EXPECT_TRUE(model) << model.error().describe();
    if (!model) return 0;
    const auto ids = test::randomIds(kDerivedTokens, vocab, 5u);
    const auto dir = test::scratchDir("derived_decay", tag);
    std::filesystem::create_directories(dir);
    writeTrace(**model, ids, false, dir / "stored.h5");
    writeTrace(**model, ids, true, dir / "derived.h5");
    auto stored = data::TraceReader::open(dir / "stored.h5");
    auto derived = data::TraceReader::open(dir / "derived.h5");
    EXPECT_TRUE(stored && derived);
    if (!stored || !derived) return 0;
    EXPECT_EQ((*derived)->summary().formatVersion, data::kFormatVersion);
    int layers = 0;
    for (const auto& layer : (*stored)->summary().layers) {
        const auto* want = layer.pyramid("decay");
        const auto* got = (*derived)->summary().layer(layer.index)->pyramid("decay");
        EXPECT_EQ(!want, !got) << "layer " << layer.index;
        if (!want || !got) continue;
        EXPECT_FALSE(want->derived);
        EXPECT_TRUE(got->derived);
        EXPECT_EQ(want->levels, got->levels);
        EXPECT_EQ(want->pools, got->pools);
        ++layers;
        double worst = 0.0;
        for (int level : want->levels)
            for (auto pool : {data::Pool::Max, data::Pool::Mean})
                for (int h = 0; h < want->heads; ++h) {
                    const int64_t tiles = data::tilesPerSide(kDerivedTokens, level);
                    for (int64_t tr = 0; tr < tiles; ++tr)
                        for (int64_t tc = 0; tc <= tr; ++tc) {
                            auto a = (*stored)->pyramidTile(layer.index, "decay", pool, level, h,
                                                            tr, tc);
                            auto b = (*derived)->pyramidTile(layer.index, "decay", pool, level, h,
                                                             tr, tc);
                            EXPECT_TRUE(a && b);
                            if (!a || !b) return layers;
                            EXPECT_EQ(a->rows, b->rows);
                            EXPECT_EQ(a->cols, b->cols);
                            for (int64_t i = 0; i < data::kTileSide * data::kTileSide; ++i) {
                                const double x = a->values()[i], y = b->values()[i];
                                worst = std::max(worst, std::abs(x - y) / (std::abs(x) + 1e-30));
                                // The builders' float32 exp gives 0 below e^-87; derivation
                                // too, and cells that small may differ by the underflow.
                                if (std::abs(x - y) > 2e-38) {
                                    EXPECT_LT(std::abs(x - y), 1e-5 * std::abs(x)) << "cell " << i;
                                    if (std::abs(x - y) >= 1e-5 * std::abs(x)) return layers;
                                }
                            }
                        }
                }
        // The builders exponentiate float32 differences in float32; the reader in float64.
        EXPECT_LT(worst, 2e-5) << tag << " layer " << layer.index;
        std::printf("[ derived  ] %s layer %d: max relative |derived - stored| = %.3g\n",
                    tag.c_str(), layer.index, worst);
    }
    return layers;
}

TEST(DerivedDecayTrace, FoxDecayPyramidsEqualTheStoredOnes) {
    test::fox::RefConfig c;
    c.layers = 2;
    const auto dir = test::scratchDir("derived_decay", "fox_model");
    test::writeCheckpoint(dir, test::fox::refConfigJson(c), test::fox::randomRefWeights(c, 3u));
    EXPECT_EQ(expectDerivedEqualsStored(dir, c.vocab, "fox"), 2);
}

TEST(DerivedDecayTrace, GatedFwaDecayPyramidsEqualTheStoredOnes) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_GE(expectDerivedEqualsStored(dir, (*model)->info().vocabSize, "gatedfwa"), 1);
}

TEST(DerivedDecayTrace, TransformerHasNoDecayPyramidEitherWay) {
    test::fox::RefConfig c;
    c.transformer = true, c.rope = true, c.layers = 1, c.window = 40;
    const auto dir = test::scratchDir("derived_decay", "transformer_model");
    test::writeCheckpoint(dir, test::fox::refConfigJson(c), test::fox::randomRefWeights(c, 6u));
    EXPECT_EQ(expectDerivedEqualsStored(dir, c.vocab, "transformer"), 0);
}

}  // namespace
}  // namespace gatescope
