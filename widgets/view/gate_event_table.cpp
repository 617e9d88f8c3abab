#include "widgets/view/gate_event_table.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace gatescope::widgets {

namespace {

bool containsFolded(std::string_view text, std::string_view needle) {
    auto fold = [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    return std::search(text.begin(), text.end(), needle.begin(), needle.end(),
                       [&](char a, char b) { return fold(a) == fold(b); }) != text.end();
}

/// a < b in `column`.
bool less(const core::GateEvent& a, const core::GateEvent& b, GateEventColumn column) {
    switch (column) {
        case GateEventColumn::Layer:
            return a.layer < b.layer;
        case GateEventColumn::Head:
            return a.head < b.head;
        case GateEventColumn::Channel:
            return a.channel < b.channel;
        case GateEventColumn::Position:
            return a.position < b.position;
        case GateEventColumn::Retention:
            return a.retention < b.retention;
        case GateEventColumn::Token:
            return a.token < b.token;
        case GateEventColumn::Context:
            return a.context < b.context;
    }
    return false;
}

}  // namespace

std::vector<size_t> gateEventRows(const std::vector<core::GateEvent>& events,
                                  std::string_view search, const GateEventSort& sort) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < events.size(); ++i)
        if (search.empty() || containsFolded(events[i].token, search) ||
            containsFolded(events[i].context, search))
            rows.push_back(i);
    std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
        return sort.descending ? less(events[b], events[a], sort.column)
                               : less(events[a], events[b], sort.column);
    });
    return rows;
}

}  // namespace gatescope::widgets
