// 16-bit floats (IEEE binary16 and bfloat16) to and from float32: the one implementation used by
// checkpoints (f16/bf16 tensors) and traces (factors stored as f16). Pure functions; thread-safe.
#pragma once

#include <bit>
#include <cstdint>

namespace gatescope::data {

/// Rounds to the nearest binary16 (ties to even); overflow gives infinity, NaN stays NaN.
uint16_t floatToHalf(float value);

/// IEEE 754 binary16 to float32: exact for every value, subnormals included (all binary16 values
/// are representable in float32). NaN payloads are kept in the high mantissa bits. Inline: it is
/// the inner loop of converting f16 checkpoints.
inline float halfToFloat(uint16_t bits) {
    const uint32_t sign = uint32_t{bits & 0x8000u} << 16;
    const uint32_t exponent = (bits >> 10) & 0x1Fu;
    const uint32_t mantissa = bits & 0x3FFu;
    if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    if (exponent != 0)  // normal: rebias 15 -> 127
        return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    // Zero or subnormal: value = mantissa * 2^-24, exact in float32.
    const float value = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -value : value;
}

/// bfloat16 is the upper half of a float32: exact, NaN and infinities preserved.
inline float bf16ToFloat(uint16_t bits) {
    return std::bit_cast<float>(uint32_t{bits} << 16);
}

}  // namespace gatescope::data
