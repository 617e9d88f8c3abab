// IEEE binary16 conversion for factors stored as f16 (TraceWriterOptions::factorsAsF16).
#pragma once

#include <cstdint>

namespace gatescope::data {

/// Rounds to the nearest binary16 (ties to even); overflow gives infinity, NaN stays NaN.
uint16_t floatToHalf(float value);
/// Exact widening of a binary16 bit pattern.
float halfToFloat(uint16_t bits);

}  // namespace gatescope::data
