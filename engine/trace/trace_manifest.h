// Private to core/trace: the provenance manifest of a trace job.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/checkpoint/checkpoint.h"
#include "core/input/input.h"
#include "core/tokenizer/tokenizer.h"
#include "core/trace/trace_request.h"

namespace gatescope::core {

/// Gathers the weight files' digests (Checkpoint::weightSha256, in weightFiles() order), config,
/// tokenizer identity, input hash, version, device, dtypes and the attention path. `tokenizer` may
/// be null (id inputs). `device` is checkDevice's description ("cpu", "cuda:0: NVIDIA H200 ...").
nlohmann::json buildTraceManifest(const Checkpoint& checkpoint,
                                  const std::vector<std::string>& weightSha256,
                                  const Tokenizer* tokenizer, const TraceRequest& request,
                                  const InputTokens& input, const std::string& attentionPath,
                                  const std::string& device);

}  // namespace gatescope::core
