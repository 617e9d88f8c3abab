// The ranges a trace's counts must lie in before the reader allocates anything for them. A file
// from outside can claim any count in an attribute or a dataspace; these bound what gatescope
// believes, with room to spare above the largest real traces (64k-128k tokens, a few dozen heads).
#pragma once

#include <cstdint>

namespace gatescope::data {

inline constexpr int64_t kMaxTraceTokens = int64_t{1} << 22;  ///< N: 4M tokens (32x 128k)
inline constexpr int kMaxTraceHeads = 1024;                   ///< n_heads, n_kv_heads
inline constexpr int kMaxTraceDim = 1 << 16;  ///< head_dim, value_dim, n_channels, factor D
inline constexpr int kMaxPyramidLevel = 40;   ///< pyramid levels 0..40
/// /tokens/source_bytes: at most 4 GiB, the largest input file gatescope reads (kInputFile).
inline constexpr int64_t kMaxSourceBytes = int64_t{4} << 30;
/// A whole-array read (TraceReader::gates) refuses more values than this (4 GiB of float).
inline constexpr int64_t kMaxWholeReadValues = int64_t{1} << 30;

}  // namespace gatescope::data
