// `gatescope trace --range` on a random "transformer-project_fox" checkpoint (the Transformer
// LLaMA baseline's own class) with grouped-query heads and a sliding window: the trace records
// the kv heads and the window, and both the finest pyramid level and the viewer's exact tiles
// (recomputed from the stored factors) are the float64 reference's attention.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/maps/trace_head.h"
#include "data/trace/trace_reader.h"
#include "engine/fox_reference_model.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

TEST(TransformerTrace, RangeOfAWindowedGqaModelHoldsTheReferenceAttention) {
    test::fox::RefConfig c;
    c.transformer = true, c.rope = true;
    c.layers = 1, c.kvHeads = 2, c.window = 40;
    const auto weights = test::fox::randomRefWeights(c, 12u);
    test::TempDir tmp;
    test::writeCheckpoint(tmp / "model", test::fox::refConfigJson(c), weights);
    const auto all = test::randomIds(300, c.vocab, 13u);
    {
        std::ofstream ids(tmp / "input.ids");
        for (auto id : all)
            ids << id << ' ';
    }
    const int64_t begin = 20, end = 290, n = end - begin;  // two pyramid tiles a side
    const auto out = tmp / "trace.h5";
    auto r = runCli(
        fmt::format("trace --model {} --input {} --input-kind ids --range {}:{} --out {}",
                    quoted(tmp / "model"), quoted(tmp / "input.ids"), begin, end, quoted(out)),
        tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto info = runCli("info --json " + quoted(out), tmp);
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_EQ(nlohmann::json::parse(info.out)["model_type"], "transformer-project_fox");

    auto reader = data::TraceReader::open(out);
    ASSERT_TRUE(reader) << reader.error().describe();
    ASSERT_EQ((*reader)->summary().nTokens, n);
    const auto* layer = (*reader)->summary().layer(0);
    ASSERT_TRUE(layer);
    EXPECT_EQ(layer->header.nHeads, c.heads);
    EXPECT_EQ(layer->header.nKvHeads, c.kvHeads);
    EXPECT_EQ(layer->header.extras.value("window", 0), c.window);
    ASSERT_TRUE(layer->pyramid("attention"));
    EXPECT_FALSE(layer->pyramid("decay"));  // no forget gate: no decay map

    const std::vector<int32_t> ids(all.begin() + begin, all.begin() + end);
    const auto ref = test::fox::runReference(c, weights, ids);
    for (int h = 0; h < c.heads; ++h) {
        SCOPED_TRACE(fmt::format("head {}", h));
        // The viewer's exact path: factors of the head's kv head, the window from the header.
        auto head = core::loadTraceHead(**reader, 0, h);
        ASSERT_TRUE(head) << head.error().describe();
        std::vector<float> exact(n * n);
        (*head)->source->compute(kernels::MapKind::Attention, 0, n, 0, n, exact.data());
        double exactDiff = 0, pyramidDiff = 0, outside = 0;
        const int64_t tiles = (n + data::kTileSide - 1) / data::kTileSide;
        for (int64_t tr = 0; tr < tiles; ++tr)
            for (int64_t tc = 0; tc <= tr; ++tc) {
                auto tile = (*reader)->pyramidTile(0, "attention", data::Pool::Max, 0, h, tr, tc);
                ASSERT_TRUE(tile) << tile.error().describe();
                for (int64_t row = 0; row < tile->rows; ++row)
                    for (int64_t col = 0; col < tile->cols; ++col) {
                        const int64_t i = tr * data::kTileSide + row,
                                      j = tc * data::kTileSide + col;
                        const double want = ref.layers[0].probs[h][i][j];
                        pyramidDiff = std::max(pyramidDiff, std::abs(tile->at(row, col) - want));
                        exactDiff = std::max(exactDiff, std::abs(exact[i * n + j] - want));
                        if (j <= i - c.window)
                            outside = std::max<double>(outside, exact[i * n + j]);
                    }
            }
        EXPECT_LT(pyramidDiff, 1e-4);
        EXPECT_LT(exactDiff, 1e-4);
        EXPECT_EQ(outside, 0.0);  // keys before the window get no weight
    }
}

}  // namespace
}  // namespace gatescope
