// TokenReads (the Reads dock's model, display-free): the row and the column of a token on the
// real sample trace agree cell by cell with each other and with the exact tiles' source, the
// listed tokens are the strongest with their logit split, and the heat/colour ramp.
#include <atomic>
#include <cmath>

#include <gtest/gtest.h>

#include "core/maps/trace_head.h"
#include "support/sample_trace.h"
#include "widgets/view/token_reads.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

std::unique_ptr<core::TraceHead> sampleHead(int layer, int head) {
    const auto trace = sample::sampleTrace();
    if (trace.empty()) return nullptr;
    auto doc = TraceDocument::open(trace);
    if (!doc) return nullptr;
    auto h = core::loadTraceHead(*(*doc)->reader, layer, head);
    return h ? std::move(*h) : nullptr;
}

}  // namespace

TEST(TokenReads, RowAndColumnOfTheSampleTraceAgreeAndListTheStrongest) {
    auto head = sampleHead(1, 2);
    ASSERT_TRUE(head);
    const int64_t n = head->source->size();
    std::atomic<bool> cancelled{false};
    const int64_t query = 300, key = 280;
    auto row = computeTokenReads(*head, ReadsMode::Row, query, 8, cancelled);
    auto col = computeTokenReads(*head, ReadsMode::Column, key, 8, cancelled);
    ASSERT_TRUE(row.ok() && col.ok());
    EXPECT_EQ(row->layer, 1);
    EXPECT_EQ(row->head, 2);
    ASSERT_EQ(row->weights.size(), size_t(query + 1));
    ASSERT_EQ(col->weights.size(), size_t(n - key));
    EXPECT_EQ(col->first, key);
    // A[300, 280] is the same cell in the row and in the column, and in a 1 x 1 tile.
    float cell = 0;
    head->source->compute(kernels::MapKind::Attention, query, 1, key, 1, &cell);
    EXPECT_EQ(row->weightAt(key), cell);
    EXPECT_EQ(col->weightAt(query), cell);
    EXPECT_LT(row->weightAt(query + 1), 0);  // the future is not in the row
    EXPECT_LT(col->weightAt(key - 1), 0);    // nor earlier queries in the column
    double sum = 0;
    for (float w : row->weights)
        sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-4);
    // FoX: the split is there, content + forget is the logit, and the strongest come first.
    for (const TokenReads* r : {&*row, &*col}) {
        ASSERT_TRUE(r->split);
        ASSERT_EQ(r->top.size(), 8u);
        EXPECT_EQ(r->top[0].weight, r->maxWeight);
        for (size_t i = 1; i < r->top.size(); ++i)
            EXPECT_GE(r->top[i - 1].weight, r->top[i].weight);
        for (const ReadsEntry& e : r->top) {
            EXPECT_EQ(e.weight, r->weightAt(e.position));
            EXPECT_LE(e.forget, 1e-6);  // forgetting only takes away
            const int64_t q = r->mode == ReadsMode::Row ? r->position : e.position;
            const int64_t k = r->mode == ReadsMode::Row ? e.position : r->position;
            float logit = 0;
            head->source->compute(kernels::MapKind::Logit, q, 1, k, 1, &logit);
            EXPECT_NEAR(e.content + e.forget, logit, 1e-4 * (1 + std::abs(logit)));
        }
    }
}

TEST(TokenReads, AColumnStopsWhenCancelled) {
    auto head = sampleHead(0, 0);
    ASSERT_TRUE(head);
    std::atomic<bool> cancelled{true};
    auto col = computeTokenReads(*head, ReadsMode::Column, 0, 4, cancelled);
    ASSERT_FALSE(col.ok());
    EXPECT_EQ(col.error().kind, ErrorKind::Cancelled);
}

TEST(TokenReads, HeatIsTheSquareRootOfTheShareOfTheStrongest) {
    EXPECT_EQ(readsHeat(0.5f, 0.5f), 1.f);
    EXPECT_NEAR(readsHeat(0.125f, 0.5f), 0.5f, 1e-6);
    EXPECT_EQ(readsHeat(0.f, 0.5f), 0.f);
    EXPECT_EQ(readsHeat(-1.f, 0.5f), 0.f);  // not in the row
    EXPECT_EQ(readsHeat(0.1f, 0.f), 0.f);
    EXPECT_EQ(readsColor(0), 0xFF282830u);  // the text panel's background
    EXPECT_EQ(readsColor(1), 0xFFFA8C14u);  // orange
    EXPECT_EQ(readsColor(2), readsColor(1));
}
