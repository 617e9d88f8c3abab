#include "data/common/float16.h"

#include <bit>

namespace gatescope::data {

uint16_t floatToHalf(float value) {
    uint32_t bits = std::bit_cast<uint32_t>(value);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) {  // inf or NaN (keep NaN quiet and non-zero)
        return static_cast<uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
    }
    if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (magnitude < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (magnitude < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the min
        uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        int shift = 126 - static_cast<int>(magnitude >> 23);  // value / 2^-24 = m * 2^(e - 126)
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = ((magnitude - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
    uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
}

}  // namespace gatescope::data
