// Gate events: the positions where a head (or one channel of a per-channel gate) forgets hard,
// i.e. its retention exp(g) at that token falls below a threshold, with the tokens that trigger
// it. The decay a key sees is the product of the retentions after it, so one such token cuts off
// most of what came before. Listed strongest first (lowest retention), so the list a viewer or a
// script reads starts with the sharpest resets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

struct GateEventOptions {
    double retention = 0.5;   ///< an event: exp(g) < retention, in (0, 1)
    int64_t limit = 200;      ///< events kept, strongest first (the total is still counted)
    std::vector<int> layers;  ///< empty: every gated layer
    int contextTokens = 4;    ///< tokens before the event shown in GateEvent::context
};

struct GateEvent {
    int layer = 0, head = 0, channel = 0;
    int64_t position = 0;  ///< the token whose gate forgets
    double retention = 0;  ///< exp(g) there
    std::string token;     ///< its text
    std::string context;   ///< the contextTokens tokens before it, then the token
};

struct GateEventReport {
    double retention = 0;           ///< the threshold used
    int64_t total = 0;              ///< events found, before the limit
    std::vector<GateEvent> events;  ///< strongest first; ties by layer, head, channel, position
    /// {retention, total, events: [{layer, head, channel, position, retention, token, context}]}
    nlohmann::json toJson() const;
};

/// The events of one trace. Memory: one layer's gates at a time plus the kept events. Errors:
/// retention outside (0, 1) or limit < 0 (Usage), the reader's (naming the trace and dataset).
Result<GateEventReport> gateEvents(const data::TraceReader& trace, const GateEventOptions& options);

}  // namespace gatescope::core
