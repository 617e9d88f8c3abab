// Format v3 derives the decay pyramid of additive-decay layers from log_decay_cumsum instead of
// storing it. CPU traces of the same forward written both ways (TraceWriterOptions::
// deriveDecayPyramids off: the v2 layout, the pyramid builders' cells stored): every tile of every
// level, max and mean, every head, read through TraceReader, agrees to float32 rounding, at a
// length that is not a power of two. FoX, the GatedFWA fixture (window 24) and
// the Transformer (no forget gate: no decay map either way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

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
                const std::filesystem::path& out,
                core::ComputeDType dtype = core::ComputeDType::Float32) {
    core::TraceRequest request;
    request.threads = 2;
    request.dtype = dtype;
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
    run.dtype = dtype;
    auto result = model.forward(ids, {}, run, &recorder);
    ASSERT_TRUE(result) << result.error().describe();
    ASSERT_TRUE(recorder.finish());
    data::Manifest manifest;
    manifest.modelType = model.info().family;
    ASSERT_TRUE((*writer)->writeManifest(manifest.toJson()));
    data::PerTokenResults rows;
    rows.loss.assign(ids.size(), 0.0f);
    rows.targetRank.assign(ids.size(), 0);
    rows.entropy.assign(ids.size(), 0.0f);
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

/// Keeps layer 0's factors of a forward.
class FirstLayerFactors final : public core::Probe {
public:
    bool wantsLayer(int layer) const override { return layer == 0; }
    void onLayer(core::LayerRecord&& record) override { factors = std::move(record.factors); }
    std::map<std::string, core::FloatArray> factors;
};

// A bf16 forward on the CPU stores its multiplied factors (q, k) as bfloat16, as the GPU pipeline
// does and docs/trace-format.md says, bit for bit the values the forward computed; lse and
// log_decay_cumsum stay float32; a float32 forward stores float32.
TEST(DerivedDecayTrace, CpuBf16ForwardStoresQAndKAsBfloat16) {
    test::fox::RefConfig c;
    c.layers = 1;
    const auto dir = test::scratchDir("derived_decay", "fox_bf16_model");
    test::writeCheckpoint(dir, test::fox::refConfigJson(c), test::fox::randomRefWeights(c, 4u));
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const auto ids = test::randomIds(300, c.vocab, 8u);
    for (auto dtype : {core::ComputeDType::BFloat16, core::ComputeDType::Float32}) {
        const bool bf16 = dtype == core::ComputeDType::BFloat16;
        FirstLayerFactors seen;
        core::RunOptions run;
        run.threads = 2;
        run.dtype = dtype;
        ASSERT_TRUE((*model)->forward(ids, {}, run, &seen));
        const auto out = dir / (bf16 ? "bf16.h5" : "f32.h5");
        writeTrace(**model, ids, true, out, dtype);
        auto reader = data::TraceReader::open(out);
        ASSERT_TRUE(reader) << reader.error().describe();
        const auto* layer = (*reader)->summary().layer(0);
        ASSERT_TRUE(layer);
        for (const char* name : {"q", "k", "lse", "log_decay_cumsum"}) {
            const data::FactorInfo* info = layer->factor(name);
            ASSERT_TRUE(info) << name;
            const bool multiplied = std::string(name) == "q" || std::string(name) == "k";
            EXPECT_EQ(info->bf16, bf16 && multiplied) << name;
            const core::FloatArray& want = seen.factors.at(name);
            const int64_t perHead = want.numel() / want.dim(0);
            for (int h = 0; h < static_cast<int>(want.dim(0)); ++h) {
                auto got = (*reader)->factor(0, name, h, 0, static_cast<int64_t>(ids.size()));
                ASSERT_TRUE(got) << got.error().describe();
                ASSERT_EQ(static_cast<int64_t>(got->values.size()), perHead);
                EXPECT_EQ(std::memcmp(got->values.data(), want.data.data() + h * perHead,
                                      static_cast<size_t>(perHead) * 4),
                          0)
                    << name << " head " << h << (bf16 ? " bf16" : " f32");
            }
        }
    }
}

}  // namespace
}  // namespace gatescope
