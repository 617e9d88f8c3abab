// The Gate Events dock's table, display-free: which events of a report a search shows and in
// which order a clicked column header sorts them. Pure functions over core::GateEventReport.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/analysis/gate_events.h"

namespace gatescope::widgets {

/// The table's columns, in display order.
enum class GateEventColumn { Layer, Head, Channel, Position, Retention, Token, Context };
inline constexpr int kGateEventColumns = 7;

struct GateEventSort {
    GateEventColumn column = GateEventColumn::Retention;
    bool descending = false;  ///< the default: strongest (lowest retention) first
};

/// Indices into `events` of those whose token or context contains `search` (ASCII letters
/// compared case-insensitively; empty: all), ordered by `sort`; ties keep the report's order
/// (strongest first), so a sort is stable.
std::vector<size_t> gateEventRows(const std::vector<core::GateEvent>& events,
                                  std::string_view search, const GateEventSort& sort);

}  // namespace gatescope::widgets
