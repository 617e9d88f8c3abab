// The ranges of the numeric options that size the work of `stats`, `compare` and batch analyses.
// The CLI validates its options against them (a usage error naming the option and the range) and
// statsReport / compareTraces check them again for callers that do not come through the CLI
// (batch recipes), so no value can make them loop or allocate without bound.
#pragma once

#include <cstdint>
#include <string>

#include "data/common/result.h"

namespace gatescope::core {

inline constexpr int kMaxBinsPerOctave = 64;               ///< exponential bins per doubling
inline constexpr int64_t kMaxBinWidth = int64_t{1} << 24;  ///< linear bin width, positions
inline constexpr int kMaxSmoothingWindow = 1 << 24;        ///< moving-average window

/// Usage error "NAME is VALUE; allowed: LO to HI" unless lo <= value <= hi.
inline Status checkOptionRange(const std::string& name, int64_t value, int64_t lo, int64_t hi) {
    if (value >= lo && value <= hi) return Ok{};
    return Error{ErrorKind::Usage,
                 name + " is " + std::to_string(value) + "; allowed: " + std::to_string(lo) +
                     " to " + std::to_string(hi),
                 {},
                 {}};
}

}  // namespace gatescope::core
