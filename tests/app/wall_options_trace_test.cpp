// `gatescope trace` on a Wall model with every option of the authors' reference (window, sink,
// scalar gate, GQA with tied subdim gates) and packed documents (`--documents`): the trace holds
// what recomputes its tiles (window, scalar-gate cumsum, sink, document starts), and both the
// stored pyramid and the exact tiles recomputed from the file match the float64 model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/maps/trace_head.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/wall_reference_model.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;
using test::writeIds;

constexpr int32_t kSeparator = 3;

TEST(WallOptionsTrace, StoresTheOptionsAndRecomputesTheFloat64Attention) {
    test::WallRefConfig c;
    c.layers = 1, c.heads = 4, c.kvHeads = 2, c.tieGates = true, c.headDim = 8, c.gateDim = 4;
    c.window = 64, c.sink = true, c.scalarGate = true, c.gateBias = 0.5;
    const auto weights = test::randomWallWeights(c, 12u);
    test::TempDir tmp;
    test::writeCheckpoint(tmp / "wall", test::wallConfigJson(c), weights);
    // 300 tokens; the separator opens documents at 70, 71 and 200 (BOS-style).
    std::vector<int32_t> ids(300);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = 4 + static_cast<int32_t>((i * 7 + i / 5) % (c.vocab - 4));
    const std::vector<int64_t> starts = {0, 70, 71, 200};
    for (int64_t s : starts)
        if (s > 0) ids[s] = kSeparator;
    const auto out = tmp / "trace.h5";
    auto r = runCli(
        fmt::format("trace --model {} --input {} --input-kind ids --out {} "
                    "--documents start:{}",
                    quoted(tmp / "wall"), quoted(writeIds(tmp, ids)), quoted(out), kSeparator),
        tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto reader = data::TraceReader::open(out);
    ASSERT_TRUE(reader) << reader.error().describe();
    const auto manifest = (*reader)->manifest().value();
    EXPECT_EQ(manifest["input_file"]["documents"], fmt::format("start:{}", kSeparator));

    const auto* layer = (*reader)->summary().layer(0);
    ASSERT_TRUE(layer);
    const auto& extras = layer->header.extras;
    EXPECT_EQ(extras["window"], 64);
    EXPECT_EQ(extras["scalar_gate"], true);
    EXPECT_EQ(extras["document_starts"].get<std::vector<int64_t>>(), starts);
    const auto sink = extras["sink_bias"].get<std::vector<float>>();
    ASSERT_EQ(sink.size(), 4u);
    EXPECT_EQ(sink[2], weights.at("model.layers.0.attn.sink_bias").values[2]);
    EXPECT_TRUE(layer->factor("log_scalar_decay_cumsum"));

    const auto ref = test::wallReference(c, weights, ids, starts);
    const int64_t n = ids.size();
    double pyramidDiff = 0, tileDiff = 0, decayDiff = 0;
    std::vector<float> tile(n * n);
    for (int h = 0; h < c.heads; ++h) {
        // The stored finest pyramid level (level 0 at 300 tokens), max pool = the cells.
        for (int64_t tr = 0; tr * data::kTileSide < n; ++tr)
            for (int64_t tc = 0; tc <= tr; ++tc) {
                auto t = (*reader)->pyramidTile(0, "attention", data::Pool::Max, 0, h, tr, tc);
                ASSERT_TRUE(t) << t.error().describe();
                for (int64_t i = 0; i < t->rows; ++i)
                    for (int64_t j = 0; j < t->cols; ++j) {
                        const int64_t qi = tr * data::kTileSide + i, kj = tc * data::kTileSide + j;
                        if (qi < n && kj < n)
                            pyramidDiff = std::max(pyramidDiff,
                                                   std::abs(t->at(i, j) - ref.probs0[h][qi][kj]));
                    }
            }
        // Exact tiles recomputed from the file's factors, as the viewer does.
        auto head = core::loadTraceHead(**reader, 0, h);
        ASSERT_TRUE(head) << head.error().describe();
        EXPECT_EQ((*head)->source->window(), 64);
        (*head)->source->compute(kernels::MapKind::Attention, 0, n, 0, n, tile.data());
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                tileDiff = std::max(tileDiff, std::abs(tile[i * n + j] - ref.probs0[h][i][j]));
        (*head)->source->compute(kernels::MapKind::Decay, 0, n, 0, n, tile.data());
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                decayDiff = std::max(decayDiff, std::abs(tile[i * n + j] - ref.decay0[h][i][j]));
    }
    EXPECT_LT(pyramidDiff, 5e-5);
    EXPECT_LT(tileDiff, 5e-5);
    EXPECT_LT(decayDiff, 5e-5);
    RecordProperty("pyramid_max_abs_err", fmt::format("{:.3e}", pyramidDiff));
    RecordProperty("tile_max_abs_err", fmt::format("{:.3e}", tileDiff));
    RecordProperty("decay_max_abs_err", fmt::format("{:.3e}", decayDiff));
}

TEST(WallOptionsTrace, DocumentsOnAModelWithoutThemAreRefused) {
    test::TempDir tmp;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "fox", {}));
    const std::vector<int32_t> ids = {5, 6, 7, 8, 9, 10, 11, 12};
    auto r =
        runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {} "
                           "--documents at:4",
                           quoted(tmp / "fox"), quoted(writeIds(tmp, ids)), quoted(tmp / "out.h5")),
               tmp);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("packed documents"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out.h5"));
}

TEST(WallOptionsTrace, MalformedDocumentsAreAUsageError) {
    test::TempDir tmp;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "fox", {}));
    const std::vector<int32_t> ids = {5, 6, 7, 8};
    for (const char* spec : {"every:3", "start:", "at:2,1", "at:9"}) {
        auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {} "
                                    "--documents {}",
                                    quoted(tmp / "fox"), quoted(writeIds(tmp, ids)),
                                    quoted(tmp / "out.h5"), spec),
                        tmp);
        EXPECT_NE(r.exitCode, 0) << spec;
        EXPECT_NE(r.err.find("--documents"), std::string::npos) << spec << ": " << r.err;
        EXPECT_FALSE(std::filesystem::exists(tmp / "out.h5"));
    }
}

}  // namespace
}  // namespace gatescope
