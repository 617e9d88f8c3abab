// Scalar building blocks written so that GCC vectorizes loops that call them: a branch-free
// exp for float and bfloat16 rounding. Header-only; used by tile_ops.cpp and by the tests.
#pragma once

#include <bit>
#include <cstdint>

namespace gatescope::kernels {

/// e^x for float, branch-free (integer selects only, so loops over it vectorize). Relative error
/// below 3e-7 for x in [-87, 88]; returns exactly 0 for x < -87 and for -inf (the forward relies
/// on exp(-inf) == 0 for masked cells), saturates at e^88 for larger x. NaN in gives garbage out.
[[gnu::always_inline]] inline float fastExp(float x) {
    constexpr uint32_t kLowBits = 0xC2AE0000u;  // -87.0f; as unsigned, larger means more negative
    constexpr int32_t kHighBits = 0x42B00000;   // 88.0f
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const bool underflow = bits > kLowBits;  // x < -87, -inf and negative NaN included
    uint32_t clamped = underflow ? kLowBits : bits;
    clamped =
        static_cast<int32_t>(clamped) > kHighBits ? static_cast<uint32_t>(kHighBits) : clamped;
    const float y = std::bit_cast<float>(clamped);

    // y = n ln2 + f with |f| <= ln2 / 2; adding 1.5 * 2^23 rounds y / ln2 to an integer.
    constexpr float kRound = 12582912.0f;
    const float t = y * 1.44269504088896341f + kRound;
    const float n = t - kRound;
    const int32_t exponent = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(kRound);
    const float f = (y - n * 0.693145751953125f) - n * 1.428606765330187045e-6f;
    // Taylor to degree 7: the truncation error, |f|^8 / 8!, is below 6e-9 on |f| <= ln2 / 2.
    float p = 1.0f / 5040.0f;
    p = p * f + 1.0f / 720.0f;
    p = p * f + 1.0f / 120.0f;
    p = p * f + 1.0f / 24.0f;
    p = p * f + 1.0f / 6.0f;
    p = p * f + 0.5f;
    p = p * f + 1.0f;
    p = p * f + 1.0f;
    const int32_t scaled = std::bit_cast<int32_t>(p) + exponent * (1 << 23);
    return underflow ? 0.0f : std::bit_cast<float>(scaled);
}

/// x rounded to the nearest bfloat16 (ties to even), returned as float: what a kernel's
/// `p.to(torch.bfloat16)` keeps. Infinities stay, NaN stays NaN.
[[gnu::always_inline]] inline float roundToBf16(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
    const bool isNan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    return std::bit_cast<float>(isNan ? bits : rounded);
}

}  // namespace gatescope::kernels
