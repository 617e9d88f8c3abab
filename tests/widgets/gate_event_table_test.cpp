// The Gate Events dock's table: a search keeps the events whose token or context holds it (any
// case), a column sorts ascending or descending, and ties keep the report's strongest-first order.
#include <gtest/gtest.h>

#include "widgets/view/gate_event_table.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

std::vector<core::GateEvent> events() {
    // As a report lists them: strongest (lowest retention) first.
    return {{1, 0, 0, 40, 0.01, " The", "said: The"},
            {0, 2, 0, 7, 0.05, ".", "end of it."},
            {0, 1, 3, 40, 0.05, "\n", "line\n"},
            {2, 0, 0, 12, 0.3, " the", "and the"}};
}

}  // namespace

TEST(GateEventTable, SearchKeepsMatchingTokensOrContextsInAnyCase) {
    const auto all = events();
    EXPECT_EQ(gateEventRows(all, "", {}), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(gateEventRows(all, "the", {}), (std::vector<size_t>{0, 3}));
    EXPECT_EQ(gateEventRows(all, "END", {}), (std::vector<size_t>{1}));  // in the context only
    EXPECT_TRUE(gateEventRows(all, "needle", {}).empty());
}

TEST(GateEventTable, ColumnsSortBothWaysAndTiesKeepTheReportsOrder) {
    const auto all = events();
    using C = GateEventColumn;
    EXPECT_EQ(gateEventRows(all, "", {C::Position, false}), (std::vector<size_t>{1, 3, 0, 2}));
    EXPECT_EQ(gateEventRows(all, "", {C::Position, true}), (std::vector<size_t>{0, 2, 3, 1}));
    EXPECT_EQ(gateEventRows(all, "", {C::Layer, false}), (std::vector<size_t>{1, 2, 0, 3}));
    EXPECT_EQ(gateEventRows(all, "", {C::Retention, true}), (std::vector<size_t>{3, 1, 2, 0}));
    EXPECT_EQ(gateEventRows(all, "", {C::Channel, true}), (std::vector<size_t>{2, 0, 1, 3}));
    EXPECT_EQ(gateEventRows(all, "the", {C::Token, false}), (std::vector<size_t>{0, 3}));
}
