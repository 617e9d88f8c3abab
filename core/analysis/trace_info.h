// What a trace holds, as one JSON object: the summary TraceReader reads at open (model, sizes,
// per layer its heads, factors and pyramids) and the manifest. It is the `gatescope info --json`
// document and the Python module's Trace.metadata / Trace.manifest, so both say the same thing.
#pragma once

#include <nlohmann/json.hpp>

#include "data/common/result.h"
#include "data/trace/trace_reader.h"

namespace gatescope::core {

/// {path, format_version, model_type, n_tokens, compression, per_token, layers: [{index,
/// score_kind, heads, kv_heads, head_dim, channels, gates, extras, factors: {name: shape},
/// pyramids: {map: {levels, pools}}}]}. Pure.
nlohmann::json traceSummaryJson(const data::TraceSummary& summary);

/// traceSummaryJson plus "manifest". Errors: the manifest cannot be read (the reader's, naming
/// the trace).
Result<nlohmann::json> traceInfoJson(const data::TraceReader& reader);

}  // namespace gatescope::core
