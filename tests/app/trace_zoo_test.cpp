// `gatescope trace` on every architecture of the zoo: the same CLI, reader, pyramids and `info`
// with no special cases, checked against the official outputs (fixtures) or, for Wall (no
// published checkpoints), the float64 model written from the formulas.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/checkpoint/safetensors_file.h"
#include "data/trace/trace_reader.h"
#include "engine/wall_reference_model.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;
using test::writeIds;

const std::filesystem::path kFixtures(GATESCOPE_FIXTURES_DIR);

struct Expected {
    std::shared_ptr<const core::SafetensorsFile> file;
    std::vector<float> floats(const std::string& name) const {
        return core::toFloat32(*file->find(name)).value();
    }
};

/// Traces `model` on `ids` with the default pyramids, checks `info --json`, returns the reader.
std::shared_ptr<data::TraceReader> trace(const std::filesystem::path& model,
                                         const std::vector<int64_t>& ids, const test::TempDir& tmp,
                                         const std::string& modelType) {
    const auto out = tmp / "trace.h5";
    auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                quoted(model), quoted(writeIds(tmp, ids)), quoted(out)),
                    tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    auto info = runCli("info --json " + quoted(out), tmp);
    EXPECT_EQ(info.exitCode, 0) << info.err;
    if (info.exitCode == 0) {
        EXPECT_EQ(nlohmann::json::parse(info.out)["model_type"], modelType);
    }
    auto reader = data::TraceReader::open(out);
    EXPECT_TRUE(reader) << (reader ? "" : reader.error().describe());
    return reader ? *reader : nullptr;
}

/// The level-0 (full resolution) attention map of one head, assembled from its 256 x 256 tiles.
std::vector<float> attentionMap(const data::TraceReader& reader, int layer, int head) {
    const int64_t n = reader.summary().nTokens, tiles = (n + data::kTileSide - 1) / data::kTileSide;
    std::vector<float> map(n * n, 0.0f);
    for (int64_t tr = 0; tr < tiles; ++tr)
        for (int64_t tc = 0; tc <= tr; ++tc) {
            auto tile = reader.pyramidTile(layer, "attention", data::Pool::Max, 0, head, tr, tc);
            EXPECT_TRUE(tile) << tile.error().describe();
            if (!tile) return map;
            for (int64_t r = 0; r < tile->rows; ++r)
                for (int64_t c = 0; c < tile->cols; ++c)
                    map[(tr * data::kTileSide + r) * n + tc * data::kTileSide + c] = tile->at(r, c);
        }
    return map;
}

double maxAbsDiff(const std::vector<float>& a, const float* b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max<double>(worst, std::abs(a[i] - b[i]));
    return worst;
}

class FixtureTrace : public ::testing::TestWithParam<const char*> {};

// GatedFWA and power attention publish their probabilities: the pyramid's finest level must be
// them, for every layer and head.
TEST_P(FixtureTrace, FinestPyramidLevelIsTheOfficialAttention) {
    const auto dir = kFixtures / GetParam();
    if (!std::filesystem::exists(dir / "config.json")) GTEST_SKIP() << dir << " absent";
    Expected expected{core::SafetensorsFile::open(dir / "expected.safetensors").value()};
    test::TempDir tmp;
    const auto ids = core::toInt64(*expected.file->find("input_ids")).value();
    auto reader = trace(dir, ids, tmp,
                        nlohmann::json::parse(test::readFile(dir / "config.json"))["model_type"]);
    ASSERT_TRUE(reader);
    const int64_t n = ids.size();
    for (const auto& layer : reader->summary().layers) {
        ASSERT_TRUE(layer.pyramid("attention")) << "layer " << layer.index;
        const auto probs = expected.floats(fmt::format("layers.{}.probs", layer.index));
        const int heads = layer.pyramid("attention")->heads;
        for (int h = 0; h < heads; ++h)
            EXPECT_LT(maxAbsDiff(attentionMap(*reader, layer.index, h), probs.data() + h * n * n),
                      1e-4)
                << "layer " << layer.index << " head " << h;
    }
}

INSTANTIATE_TEST_SUITE_P(Zoo, FixtureTrace, ::testing::Values("gatedfwa/gatedfwa", "power/power"));

// GSA has no token-level softmax; its token-to-token map A (spec: sum_j p s exp(G_t - G_i)) must
// reproduce the official layer output o = A v.
TEST(GsaTrace, PyramidAttentionTimesValuesIsTheOfficialOutput) {
    const auto dir = kFixtures / "gsa/gsa";
    if (!std::filesystem::exists(dir / "config.json")) GTEST_SKIP() << dir << " absent";
    Expected expected{core::SafetensorsFile::open(dir / "expected.safetensors").value()};
    test::TempDir tmp;
    const auto ids = core::toInt64(*expected.file->find("input_ids")).value();
    auto reader = trace(dir, ids, tmp, "gsa");
    ASSERT_TRUE(reader);
    const int64_t n = ids.size();
    for (const auto& layer : reader->summary().layers) {
        ASSERT_TRUE(layer.pyramid("decay"));
        const auto o = expected.floats(fmt::format("layers.{}.o", layer.index));
        const auto v = expected.floats(fmt::format("layers.{}.v", layer.index));
        const int heads = layer.header.nHeads, kvHeads = layer.header.nKvHeads;
        const int64_t dv = layer.header.valueDim;
        double worst = 0, scale = 1e-6;
        for (int h = 0; h < heads; ++h) {
            const auto a = attentionMap(*reader, layer.index, h);
            const int kv = h / (heads / kvHeads);
            for (int64_t t = 0; t < n; ++t)
                for (int64_t d = 0; d < dv; ++d) {
                    double sum = 0;
                    for (int64_t i = 0; i <= t; ++i)
                        sum += double(a[t * n + i]) * v[(kv * n + i) * dv + d];
                    const double ref = o[(h * n + t) * dv + d];
                    worst = std::max(worst, std::abs(sum - ref));
                    scale = std::max(scale, std::abs(ref));
                }
        }
        EXPECT_LT(worst / scale, 1e-4) << "layer " << layer.index;
    }
}

// Wall: 300 tokens (two pyramid tiles a side), GQA with tied gates on half the channels.
TEST(WallTrace, HoldsGatesAndTheAttentionOfTheFloat64Model) {
    test::WallRefConfig c;
    c.layers = 1, c.kvHeads = 2, c.tieGates = true, c.headDim = 8, c.gateDim = 4;
    const auto weights = test::randomWallWeights(c, 8u);
    test::TempDir tmp;
    test::writeCheckpoint(tmp / "wall", test::wallConfigJson(c), weights);
    std::vector<int64_t> ids(300);
    std::vector<int32_t> ids32(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = ids32[i] = static_cast<int32_t>((i * 7 + i / 5) % c.vocab);
    auto reader = trace(tmp / "wall", ids, tmp, "wall");
    ASSERT_TRUE(reader);
    const auto ref = test::wallReference(c, weights, ids32);
    const int64_t n = ids.size();
    const auto* layer = reader->summary().layer(0);
    ASSERT_TRUE(layer && layer->pyramid("decay"));
    EXPECT_EQ(layer->header.scoreKind, "wall");
    auto gates = reader->gates(0).value();
    ASSERT_EQ(gates.shape, (std::vector<int64_t>{c.heads, n, c.gateDim}));
    double gateDiff = 0, probDiff = 0;
    for (int h = 0; h < c.heads; ++h) {
        for (int64_t t = 0; t < n; ++t)
            for (int ch = 0; ch < c.gateDim; ++ch)
                gateDiff = std::max(gateDiff, std::abs(gates.values[(h * n + t) * c.gateDim + ch] -
                                                       ref.logGates0[h][t][ch]));
        const auto a = attentionMap(*reader, 0, h);
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                probDiff = std::max(probDiff, std::abs(a[i * n + j] - ref.probs0[h][i][j]));
    }
    EXPECT_LT(gateDiff, 1e-5);
    EXPECT_LT(probDiff, 5e-5);  // P is stored as float (|P| ~ 100 here: rounding ~1e-5)
}

}  // namespace
}  // namespace gatescope
