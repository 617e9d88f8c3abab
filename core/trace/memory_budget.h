// How long a sequence a trace can hold in memory, checked before the forward allocates anything:
// a 10 MB text without --range used to end in std::bad_alloc ("internal error", no file named).
#pragma once

#include <cstdint>
#include <filesystem>

#include "core/model/model.h"
#include "data/common/result.h"

namespace gatescope::core {

struct TraceRequest;

/// Bytes this process may still allocate: the smallest of MemAvailable (/proc/meminfo), the
/// cgroup's memory.max less memory.current, and RLIMIT_AS / RLIMIT_DATA less what the process
/// already maps (/proc/self/statm). UINT64_MAX when none can be read. Thread-safe.
uint64_t availableMemoryBytes();

/// An upper estimate of the host memory one token of a CPU trace takes with `info`'s sizes: one
/// layer's activations (residual stream, q/k/v and their float32 copies, the MLP), the recorded
/// factors of one layer, and the per-token tables. Calibrated on the bundled models
/// (docs/fuzzing.md, "Memory").
uint64_t traceBytesPerToken(const ModelInfo& info);

/// Ok when `tokens` tokens fit in availableMemoryBytes() (with `fixedBytes` needed besides, e.g.
/// pyramid levels); otherwise an Io error naming `input` that gives the estimate, the memory
/// available and how many tokens would fit, and suggests --range.
Status checkTraceMemory(int64_t tokens, const ModelInfo& info, uint64_t fixedBytes,
                        const std::filesystem::path& input);

/// Ok when a text of `bytes` bytes can be tokenized in the memory available (each byte may become
/// a token with its id, offsets and text: kTokenizeBytesPerByte); otherwise an Io error naming
/// `input` with the estimate.
inline constexpr uint64_t kTokenizeBytesPerByte = 96;
Status checkTokenizeMemory(uint64_t bytes, const std::filesystem::path& input);

}  // namespace gatescope::core
