// loadMapCells, the one door from a trace to a range of map values: exact cells are the head's
// recomputed map (core::loadTraceHead) max-pooled to the requested size, and ranges past
// kExactLimit come from a pyramid level whose cells hold the exact maximum of their block. The
// expectations are computed here from the head's exact tiles, not by the code under test.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "core/maps/map_cells.h"
#include "core/maps/trace_head.h"
#include "support/sample_trace.h"

namespace gatescope {
namespace {

using core::MapView;
using kernels::MapKind;

std::filesystem::path traceOf(int tokens) {
    // Cached per format version: a format change never leaves a stale file here.
    const std::filesystem::path dir = std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" /
                                      "core-map-cells" / fmt::format("v{}", data::kFormatVersion);
    const auto out = dir / fmt::format("fox-{}.h5", tokens);
    if (std::filesystem::exists(out)) return out;
    std::filesystem::create_directories(dir);
    const auto text = dir / fmt::format("text-{}-{}.txt", tokens, getpid());
    {
        std::ifstream sample(sample::sampleText(), std::ios::binary);
        const std::string once((std::istreambuf_iterator<char>(sample)), {});
        std::ofstream repeated(text, std::ios::binary);
        for (int written = 0; written < tokens; written += static_cast<int>(once.size()))
            repeated << once;
    }
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    const auto tmp = dir / fmt::format("fox-{}-{}.h5", tokens, getpid());
    const bool ok = sample::traceRandomFox(spec, text, tmp, fmt::format("--range 0:{}", tokens));
    std::filesystem::remove(text);
    if (!ok) return {};
    std::filesystem::rename(tmp, out);
    return out;
}

/// The largest finite exact value of `view` over rows [r0, r1) x cols [c0, c1) (the product:
/// attention times decay, cell by cell, before the maximum); NaN when none.
float exactMax(const kernels::TileSource& src, MapView view, int64_t r0, int64_t r1, int64_t c0,
               int64_t c1) {
    std::vector<float> band(static_cast<size_t>((r1 - r0) * (c1 - c0)));
    src.compute(view == MapView::Decay ? MapKind::Decay : MapKind::Attention, r0, r1 - r0, c0,
                c1 - c0, band.data());
    if (view == MapView::Product) {
        std::vector<float> decay(band.size());
        src.compute(MapKind::Decay, r0, r1 - r0, c0, c1 - c0, decay.data());
        for (size_t i = 0; i < band.size(); ++i)
            band[i] *= decay[i];
    }
    float best = std::numeric_limits<float>::quiet_NaN();
    for (float v : band)
        if (std::isfinite(v) && !(v <= best)) best = v;
    return best;
}

TEST(MapCells, ExactRangeIsTheRecomputedMapMaxPooled) {
    const auto path = traceOf(300);
    ASSERT_FALSE(path.empty());
    auto reader = data::TraceReader::open(path).value();
    auto head = core::loadTraceHead(*reader, 0, 1);
    ASSERT_TRUE(head) << head.error().describe();
    const auto& src = *(*head)->source;
    for (MapView kind : {MapView::Attention, MapView::Decay, MapView::Product}) {
        // Full resolution: every cell is the exact value (NaN where the map has none).
        auto full =
            core::loadMapCells(*reader, 0, 1, kind, core::TokenRegion::square(20, 280), 512);
        ASSERT_TRUE(full) << full.error().describe();
        EXPECT_EQ(full->source, "exact");
        ASSERT_EQ(full->rows, 260);
        ASSERT_EQ(full->step, 1);
        for (int64_t r : {0, 7, 130, 259})
            for (int64_t c : {0, 7, 130, 259}) {
                const float want = exactMax(src, kind, 20 + r, 21 + r, 20 + c, 21 + c);
                if (std::isnan(want))
                    EXPECT_TRUE(std::isnan(full->at(r, c))) << r << "," << c;
                else
                    EXPECT_FLOAT_EQ(full->at(r, c), want) << r << "," << c;
            }
        // 37 cells a side over 260 tokens: step 8, each cell the max of its 8 x 8 block.
        auto pooled =
            core::loadMapCells(*reader, 0, 1, kind, core::TokenRegion::square(20, 280), 37);
        ASSERT_TRUE(pooled);
        ASSERT_EQ(pooled->step, 8);
        ASSERT_EQ(pooled->rows, 33);
        for (int64_t r = 0; r < pooled->rows; r += 4)
            for (int64_t c = 0; c <= r; c += 3) {
                const int64_t r0 = 20 + r * 8, c0 = 20 + c * 8;
                const float want = exactMax(src, kind, r0, std::min<int64_t>(r0 + 8, 280), c0,
                                            std::min<int64_t>(c0 + 8, 280));
                EXPECT_FLOAT_EQ(pooled->at(r, c), want) << r << "," << c;
            }
    }
}

TEST(MapCells, LongRangesReadThePyramidWhoseCellsAreExactBlockMaxima) {
    const int n = static_cast<int>(core::kExactLimit) + 700;
    const auto path = traceOf(n);
    ASSERT_FALSE(path.empty());
    auto reader = data::TraceReader::open(path).value();
    auto head = core::loadTraceHead(*reader, 0, 0);
    ASSERT_TRUE(head) << head.error().describe();
    // 64 cells a side: 75 tokens each, read from a level whose cells (2^L tokens) are finer, and
    // 600 a side: 8 tokens each, exactly the finest level's cells.
    for (int maxCells : {64, 600}) {
        auto cells = core::loadMapCells(*reader, 0, 0, MapView::Attention,
                                        core::TokenRegion::square(0, n), maxCells);
        ASSERT_TRUE(cells) << cells.error().describe();
        int level = -1;
        ASSERT_EQ(std::sscanf(cells->source.c_str(), "pyramid level %d", &level), 1)
            << cells->source;
        const int64_t step = cells->step, unit = int64_t{1} << level;
        EXPECT_LE(unit, step);
        EXPECT_GE(step * maxCells, n);
        // A cell holds the stored pyramid cells whose first token falls in it: its edges are
        // rounded up to the level's unit. Each stored cell is the exact maximum of its block, so
        // the figure cell is the exact maximum over those blocks (to float32).
        const auto edge = [&](int64_t i) {
            return std::min<int64_t>((i * step + unit - 1) / unit * unit, n);
        };
        for (int64_t r = 0; r < cells->rows; r += maxCells == 64 ? 1 : 37)
            for (int64_t c = 0; c <= r; c += maxCells == 64 ? 1 : 29) {
                const float want = exactMax(*(*head)->source, MapView::Attention, edge(r),
                                            edge(r + 1), edge(c), edge(c + 1));
                EXPECT_NEAR(cells->at(r, c), want, 1e-6f + 1e-5f * std::abs(want))
                    << r << "," << c << " at " << maxCells << " cells";
            }
        EXPECT_EQ(cells->at(0, cells->cols - 1), 0.f);  // above the diagonal the map is 0
    }
}

TEST(MapCells, ARectangleOffTheDiagonalIsItsQueriesByItsKeys) {
    // Exact: queries 200-279 x keys 20-59 (80 x 40 cells), each the head's own value.
    const auto path = traceOf(300);
    ASSERT_FALSE(path.empty());
    auto reader = data::TraceReader::open(path).value();
    auto head = core::loadTraceHead(*reader, 0, 1);
    ASSERT_TRUE(head) << head.error().describe();
    const core::TokenRegion region{200, 280, 20, 60};
    auto cells = core::loadMapCells(*reader, 0, 1, MapView::Attention, region, 512);
    ASSERT_TRUE(cells) << cells.error().describe();
    ASSERT_EQ(cells->rows, 80);
    ASSERT_EQ(cells->cols, 40);
    for (int64_t r : {0, 33, 79})
        for (int64_t c : {0, 17, 39})
            EXPECT_FLOAT_EQ(cells->at(r, c), exactMax(*(*head)->source, MapView::Attention, 200 + r,
                                                      201 + r, 20 + c, 21 + c));
    // Pooled along the longer side: 80 queries in 10 cells of 8, so the keys in 5.
    auto pooled = core::loadMapCells(*reader, 0, 1, MapView::Attention, region, 10);
    ASSERT_TRUE(pooled);
    EXPECT_EQ(pooled->step, 8);
    EXPECT_EQ(pooled->rows, 10);
    EXPECT_EQ(pooled->cols, 5);
    EXPECT_FLOAT_EQ(pooled->at(9, 4),
                    exactMax(*(*head)->source, MapView::Attention, 272, 280, 52, 60));
    // Regions outside the trace are usage errors naming it.
    for (const core::TokenRegion bad :
         {core::TokenRegion{280, 200, 0, 10}, core::TokenRegion{0, 10, 0, 301},
          core::TokenRegion{-1, 10, 0, 10}}) {
        auto none = core::loadMapCells(*reader, 0, 1, MapView::Attention, bad, 64);
        ASSERT_FALSE(none);
        EXPECT_EQ(none.error().kind, ErrorKind::Usage);
        EXPECT_NE(none.error().file.find(path.filename().string()), std::string::npos);
    }
}

TEST(MapCells, ALongRectangleReadsThePyramidCellsOfItsRowsAndColumns) {
    const int n = static_cast<int>(core::kExactLimit) + 700;
    const auto path = traceOf(n);
    ASSERT_FALSE(path.empty());
    auto reader = data::TraceReader::open(path).value();
    auto head = core::loadTraceHead(*reader, 0, 0);
    ASSERT_TRUE(head) << head.error().describe();
    // Queries [n - 600, n) x keys [0, 4400): past the exact limit, so from a pyramid level.
    const core::TokenRegion region{n - 600, n, 0, 4400};
    auto cells = core::loadMapCells(*reader, 0, 0, MapView::Attention, region, 300);
    ASSERT_TRUE(cells) << cells.error().describe();
    int level = -1;
    ASSERT_EQ(std::sscanf(cells->source.c_str(), "pyramid level %d", &level), 1) << cells->source;
    const int64_t step = cells->step, unit = int64_t{1} << level;
    EXPECT_EQ(cells->cols, (4400 + step - 1) / step);
    EXPECT_EQ(cells->rows, (600 + step - 1) / step);
    // A cell holds the pyramid cells whose first token falls in it (the one straddling the
    // region's first query joins the first row): edges rounded to the level's unit.
    const auto edge = [&](int64_t first, int64_t i, int64_t last) {
        return std::min<int64_t>((first + i * step + unit - 1) / unit * unit, last);
    };
    for (int64_t r = 1; r < cells->rows; r += 5)
        for (int64_t c = 0; c < cells->cols; c += 7) {
            const float want =
                exactMax(*(*head)->source, MapView::Attention, edge(n - 600, r, n),
                         edge(n - 600, r + 1, n), edge(0, c, 4400), edge(0, c + 1, 4400));
            EXPECT_NEAR(cells->at(r, c), want, 1e-6f + 1e-5f * std::abs(want)) << r << "," << c;
        }
}

TEST(MapCells, RangeWithoutPyramidPastTheExactLimitIsAnErrorNamingTheTrace) {
    const int n = static_cast<int>(core::kExactLimit) + 10;
    // Cached per format version: a format change never leaves a stale file here.
    const std::filesystem::path dir = std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" /
                                      "core-map-cells" / fmt::format("v{}", data::kFormatVersion);
    std::filesystem::create_directories(dir);
    const auto text = dir / fmt::format("nopyr-{}.txt", getpid());
    {
        std::ofstream out(text);
        for (int i = 0; i < n; ++i)
            out << static_cast<char>('a' + i % 26);
    }
    const auto path = dir / fmt::format("nopyr-{}.h5", getpid());
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(sample::traceRandomFox(spec, text, path, "--no-pyramids"));
    auto reader = data::TraceReader::open(path).value();
    auto cells =
        core::loadMapCells(*reader, 0, 0, MapView::Attention, core::TokenRegion::square(0, n), 64);
    ASSERT_FALSE(cells);
    EXPECT_EQ(cells.error().kind, ErrorKind::Missing);
    EXPECT_NE(cells.error().file.find(path.filename().string()), std::string::npos);
    EXPECT_NE(cells.error().message.find("pyramid"), std::string::npos);
    std::filesystem::remove(path);
    std::filesystem::remove(text);
}

}  // namespace
}  // namespace gatescope
