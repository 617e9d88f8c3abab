// Bit-exact conversions of 16-bit floats found in checkpoints to float32.
#pragma once

#include <bit>
#include <cstdint>

namespace gatescope::core {

/// bfloat16 is the upper half of a float32: exact, NaN and infinities preserved.
inline float bf16ToFloat(uint16_t bits) {
    return std::bit_cast<float>(uint32_t{bits} << 16);
}

/// IEEE 754 binary16 to float32: exact for every value, subnormals included (all binary16 values
/// are representable in float32). NaN payloads are kept in the high mantissa bits.
inline float f16ToFloat(uint16_t bits) {
    const uint32_t sign = uint32_t{bits & 0x8000u} << 16;
    const uint32_t exponent = (bits >> 10) & 0x1Fu;
    uint32_t mantissa = bits & 0x3FFu;
    if (exponent == 0x1F) {  // infinity or NaN
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    }
    if (exponent != 0) {  // normal: rebias 15 -> 127
        return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    }
    if (mantissa == 0) return std::bit_cast<float>(sign);  // signed zero
    // Subnormal: value = mantissa * 2^-24; normalize so the float32 is normal.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
    }
    mantissa &= 0x3FFu;
    const uint32_t floatExponent = static_cast<uint32_t>(113 - shift);  // 127 - 14 - shift
    return std::bit_cast<float>(sign | (floatExponent << 23) | (mantissa << 13));
}

}  // namespace gatescope::core
