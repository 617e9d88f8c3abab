#include "widgets/view/context_map.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/effective_context.h"

namespace gatescope::widgets {

double ContextMap::scaleTop() const {
    return std::max(1.0, std::log2(1.0 + static_cast<double>(nTokens)));
}

ContextMap contextMap(const core::StatsReport& report) {
    ContextMap map;
    if (report.traces.empty()) return map;
    const core::TraceStats& trace = report.traces[0];
    map.nTokens = trace.nTokens;
    map.binWidth = report.binWidth;
    map.loss = trace.lossByBin;
    map.bins = static_cast<int64_t>(trace.lossByBin.size());
    const size_t bins = static_cast<size_t>(map.bins);
    auto row = [bins](const core::PositionProfile* profile, std::vector<double>& out) {
        for (size_t b = 0; b < bins; ++b)
            out.push_back(profile && b < profile->byBin.size() ? profile->byBin[b] : NAN);
    };
    for (const core::HeadContext& h : core::effectiveContext(trace)) {
        map.heads.emplace_back(h.layer, h.head);
        map.hasGate = map.hasGate || h.gate;
        map.hasAttention = map.hasAttention || h.attention;
        row(h.gate, map.gate);
        row(h.attention, map.attention);
    }
    return map;
}

}  // namespace gatescope::widgets
