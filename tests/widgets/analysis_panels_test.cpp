// Display-free logic of the Statistics and Needle Grid docks: grid.json parsing, the cell colour
// ramp, where a cell's trace is shown, and table row -> head selection.
#include <gtest/gtest.h>

#include "widgets/view/colormap.h"
#include "widgets/view/layer_stats.h"
#include "widgets/view/needle_grid.h"
#include "widgets/view/view_context.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {
const char* kGrid = R"({"model": "ckpt/fox", "haystack": "h.txt", "easy": false,
 "lengths": [512, 1024], "depths": [0, 50],
 "cells": [
  {"length": 512, "depth": 0, "exact_match": true, "matched_prefix": 4, "answer_tokens": 4,
   "answer_loss": 0.25, "needle": [10, 30], "trace": "cells/L512_d0.h5"},
  {"length": 1024, "depth": 50, "exact_match": false, "matched_prefix": 1, "answer_tokens": 4,
   "answer_loss": 2.5, "needle": [500, 520], "trace": "cells/L1024_d50.h5"}
 ]})";

uint8_t colorChannel(uint32_t rgba, int i) {
    return static_cast<uint8_t>(rgba >> (8 * i));
}
}  // namespace

TEST(NeedleGrid, ParsesCellsAndResolvesTracesAgainstTheGridFolder) {
    auto grid = parseNeedleGrid(kGrid, "/runs/niah/grid.json");
    ASSERT_TRUE(grid) << grid.error().describe();
    EXPECT_EQ(grid->model, "ckpt/fox");
    EXPECT_EQ(grid->lengths, (std::vector<int64_t>{512, 1024}));
    EXPECT_EQ(grid->depths, (std::vector<int>{0, 50}));
    ASSERT_EQ(grid->cells.size(), 2u);
    const NeedleGridCell* a = grid->cell(0, 0);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->exactMatch);
    EXPECT_EQ(a->needleBegin, 10);
    EXPECT_EQ(a->needleEnd, 30);
    EXPECT_DOUBLE_EQ(a->answerLoss, 0.25);
    EXPECT_EQ(a->trace, std::filesystem::path("/runs/niah/cells/L512_d0.h5"));
    EXPECT_DOUBLE_EQ(a->fraction(), 1.0);
    const NeedleGridCell* b = grid->cell(1, 1);
    ASSERT_NE(b, nullptr);
    EXPECT_DOUBLE_EQ(b->fraction(), 0.25);
    EXPECT_EQ(b->answerStart(), 1020);
    EXPECT_EQ(grid->cell(1, 0), nullptr);  // not run
    EXPECT_EQ(grid->cell(2, 0), nullptr);  // out of range
}

TEST(NeedleGrid, RejectsMalformedGrids) {
    EXPECT_EQ(parseNeedleGrid("not json", "g.json").error().kind, ErrorKind::Format);
    EXPECT_EQ(parseNeedleGrid(R"({"lengths": [1], "depths": [0]})", "g.json").error().kind,
              ErrorKind::Missing);
    EXPECT_EQ(
        parseNeedleGrid(R"({"lengths": [1], "depths": [0], "cells": [{"length": "x"}]})", "g.json")
            .error()
            .kind,
        ErrorKind::Format);
    EXPECT_EQ(
        parseNeedleGrid(
            R"({"lengths": [1], "depths": [0], "cells": [{"length": 1, "depth": 0, "needle": [3]}]})",
            "g.json")
            .error()
            .kind,
        ErrorKind::Format);
    EXPECT_EQ(loadNeedleGrid("/nonexistent/grid.json").error().kind, ErrorKind::Io);
}

TEST(NeedleGrid, ColourRampMatchesHeatmapSvg) {
    // heatmap.svg: red #F0496E at 0, yellow #EBB839 at 0.5, green #0CD79F at 1.
    EXPECT_EQ(needleColor(0), packRgba(0xF0, 0x49, 0x6E));
    EXPECT_EQ(needleColor(0.5), packRgba(0xEB, 0xB8, 0x39));
    EXPECT_EQ(needleColor(1), packRgba(0x0C, 0xD7, 0x9F));
    EXPECT_EQ(needleColor(-3), needleColor(0));
    EXPECT_EQ(needleColor(7), needleColor(1));
    EXPECT_EQ(needleColor(std::nan("")), needleColor(0));
    // Green rises monotonically along the ramp; alpha is opaque.
    for (double f = 0; f < 1; f += 0.125) {
        EXPECT_LE(colorChannel(needleColor(f), 1), colorChannel(needleColor(f + 0.125), 1)) << f;
        EXPECT_EQ(colorChannel(needleColor(f), 3), 255);
    }
    NeedleGridCell empty;
    EXPECT_DOUBLE_EQ(empty.fraction(), 0);  // no answer tokens: red, not NaN
}

TEST(NeedleGrid, FocusIsAnswerRowsByColumnsAroundTheNeedle) {
    NeedleGridCell c;
    c.length = 1024;
    c.answerTokens = 4;
    c.needleBegin = 500;
    c.needleEnd = 520;
    const NeedleFocus f = needleFocus(c, 1024, 16);
    EXPECT_EQ(f.cursor, 500);
    EXPECT_EQ(f.rowBegin, 1020);
    EXPECT_EQ(f.rowEnd, 1024);
    EXPECT_EQ(f.colBegin, 484);
    EXPECT_EQ(f.colEnd, 536);
    // Clamped to the trace: a needle at the start, a trace shorter than the grid says.
    c.needleBegin = 0;
    c.needleEnd = 5;
    const NeedleFocus g = needleFocus(c, 100, 16);
    EXPECT_EQ(g.colBegin, 0);
    EXPECT_EQ(g.colEnd, 21);
    EXPECT_EQ(g.rowBegin, 99);
    EXPECT_EQ(g.rowEnd, 100);
    EXPECT_EQ(needleFocus(c, 0).rowEnd, 0);
}

TEST(LayerStats, RowsSelectTheirHeadInTheSharedContext) {
    core::LayerGateStats gates;
    for (int h = 0; h < 3; ++h)
        for (int ch = 0; ch < 2; ++ch) {
            core::ChannelGateStats c;
            c.head = h;
            c.channel = ch;
            gates.channels.push_back(c);
        }
    EXPECT_EQ(headOfGateRow(gates, 0), 0);
    EXPECT_EQ(headOfGateRow(gates, 3), 1);
    EXPECT_EQ(headOfGateRow(gates, 5), 2);
    EXPECT_EQ(headOfGateRow(gates, 6), -1);

    std::vector<core::HeadAttentionStats> heads(2);
    heads[0].head = 2;  // a subset of heads, in any order
    heads[1].head = 0;
    EXPECT_EQ(headOfAttentionRow(heads, 0), 2);
    EXPECT_EQ(headOfAttentionRow(heads, 1), 0);
    EXPECT_EQ(headOfAttentionRow(heads, 2), -1);

    ViewContext ctx;
    int changes = 0;
    ctx.addListener([&] { ++changes; });
    ctx.setLayerHead(1, headOfGateRow(gates, 4));
    EXPECT_EQ(ctx.layer(), 1);
    EXPECT_EQ(ctx.head(), 2);
    EXPECT_GE(changes, 1);
}
