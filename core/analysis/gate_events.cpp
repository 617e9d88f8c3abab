#include "core/analysis/gate_events.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

namespace gatescope::core {

namespace {

bool stronger(const GateEvent& a, const GateEvent& b) {
    return std::tie(a.retention, a.layer, a.head, a.channel, a.position) <
           std::tie(b.retention, b.layer, b.head, b.channel, b.position);
}

/// Keeps the `limit` strongest of `events` (a max-heap on strength, weakest on top).
void keep(std::vector<GateEvent>& events, GateEvent event, int64_t limit) {
    if (limit <= 0) return;
    if (static_cast<int64_t>(events.size()) < limit) {
        events.push_back(std::move(event));
        std::push_heap(events.begin(), events.end(), stronger);
    } else if (stronger(event, events.front())) {
        std::pop_heap(events.begin(), events.end(), stronger);
        events.back() = std::move(event);
        std::push_heap(events.begin(), events.end(), stronger);
    }
}

}  // namespace

nlohmann::json GateEventReport::toJson() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : events)
        list.push_back({{"layer", e.layer},
                        {"head", e.head},
                        {"channel", e.channel},
                        {"position", e.position},
                        {"retention", e.retention},
                        {"token", e.token},
                        {"context", e.context}});
    return {{"retention", retention}, {"total", total}, {"events", list}};
}

Result<GateEventReport> gateEvents(const data::TraceReader& trace, const GateEventOptions& o) {
    if (!(o.retention > 0.0 && o.retention < 1.0) || o.limit < 0 || o.contextTokens < 0)
        return Error{ErrorKind::Usage,
                     fmt::format("gate events: retention {} must be strictly between 0 and 1, the "
                                 "limit ({}) and context ({}) at least 0",
                                 o.retention, o.limit, o.contextTokens),
                     {},
                     {}};
    auto tokens = trace.tokens();
    if (!tokens) return tokens.error();
    GateEventReport report;
    report.retention = o.retention;
    const double logRetention = std::log(o.retention);
    for (const auto& layer : trace.summary().layers) {
        if (!layer.hasGates) continue;
        if (!o.layers.empty() &&
            std::find(o.layers.begin(), o.layers.end(), layer.index) == o.layers.end())
            continue;
        auto gates = trace.gates(layer.index);
        if (!gates) return gates.error();
        const int64_t heads = gates->shape.at(0), n = gates->shape.at(1), c = gates->shape.at(2);
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int64_t ch = 0; ch < c; ++ch) {
                    const double g = gates->values[(h * n + t) * c + ch];
                    if (!(g < logRetention)) continue;
                    ++report.total;
                    keep(report.events, {layer.index, int(h), int(ch), t, std::exp(g), {}, {}},
                         o.limit);
                }
    }
    std::sort(report.events.begin(), report.events.end(), stronger);
    for (auto& e : report.events) {
        if (e.position < tokens->size()) e.token = tokens->text[e.position];
        for (int64_t t = std::max<int64_t>(0, e.position - o.contextTokens);
             t <= e.position && t < tokens->size(); ++t)
            e.context += tokens->text[t];
    }
    return report;
}

}  // namespace gatescope::core
