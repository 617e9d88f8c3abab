// fastExp and roundToBf16 against definitions computed independently in double.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "kernels/cpu/fast_math.h"

namespace gatescope {
namespace {

TEST(FastMath, ExpIsAccurateOverTheFloatRange) {
    double worst = 0.0;
    for (float x = -87.0f; x <= 88.0f; x += 0.000917f) {
        const double ref = std::exp(static_cast<double>(x));
        worst = std::max(worst, std::abs(kernels::fastExp(x) - ref) / ref);
    }
    EXPECT_LT(worst, 3e-7);
    EXPECT_EQ(kernels::fastExp(0.0f), 1.0f);
}

TEST(FastMath, ExpFlushesBelowTheNormalRangeAndSaturatesAbove) {
    EXPECT_EQ(kernels::fastExp(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(kernels::fastExp(-87.5f), 0.0f);
    EXPECT_EQ(kernels::fastExp(-1e30f), 0.0f);
    EXPECT_GT(kernels::fastExp(-86.9f), 0.0f);
    const float big = kernels::fastExp(1000.0f);
    EXPECT_TRUE(std::isfinite(big));
    EXPECT_NEAR(big / std::exp(88.0), 1.0, 1e-6);
}

// Nearest bfloat16 by definition: the two bf16 neighbours of x are its truncation and the next
// value up in magnitude; pick the nearer, the one with an even last bit on a tie.
double nearestBf16(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const float down = std::bit_cast<float>(bits & 0xFFFF0000u);
    const float up = std::bit_cast<float>((bits & 0xFFFF0000u) + 0x10000u);
    const double dDown = std::abs(static_cast<double>(x) - down);
    const double dUp = std::abs(static_cast<double>(up) - x);
    if (dDown != dUp) return dDown < dUp ? down : up;
    return ((bits >> 16) & 1u) ? up : down;
}

TEST(FastMath, Bf16RoundsToNearestEven) {
    // 1 + 2^-8 is halfway between 1 (even) and 1 + 2^-7 (odd): ties go to 1.
    EXPECT_EQ(kernels::roundToBf16(1.0f + 0x1p-8f), 1.0f);
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
    EXPECT_EQ(kernels::roundToBf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);
    // Just above a tie rounds up.
    EXPECT_EQ(kernels::roundToBf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
    EXPECT_EQ(kernels::roundToBf16(-2.5f), -2.5f);
    EXPECT_TRUE(std::isinf(kernels::roundToBf16(std::numeric_limits<float>::infinity())));
    EXPECT_TRUE(std::isnan(kernels::roundToBf16(std::numeric_limits<float>::quiet_NaN())));

    std::mt19937 rng(3);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::normal_distribution<float> wide(0.0f, 100.0f);
    for (int t = 0; t < 200000; ++t) {
        const float x = t % 2 ? unit(rng) : wide(rng);
        ASSERT_EQ(kernels::roundToBf16(x), nearestBf16(x)) << "x = " << x;
    }
}

}  // namespace
}  // namespace gatescope
