// Private to core/trace: the provenance manifest of a trace job.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/checkpoint/checkpoint.h"
#include "core/input/input.h"
#include "core/tokenizer/tokenizer.h"
#include "core/trace/trace_job.h"

namespace gatescope::core {

/// Hashes the weight files (reads them all) and gathers config, tokenizer identity, input hash,
/// version, device, dtypes and the attention path. `tokenizer` may be null (id inputs).
/// `device` is checkDevice's description ("cpu", "cuda: NVIDIA H200 (sm_90, 132 SMs)").
Result<nlohmann::json> buildTraceManifest(const Checkpoint& checkpoint, const Tokenizer* tokenizer,
                                          const TraceRequest& request, const InputTokens& input,
                                          const std::string& attentionPath,
                                          const std::string& device);

}  // namespace gatescope::core
