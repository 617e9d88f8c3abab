// float16 rounding (against an exhaustive nearest-value search) and UTF-8 validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "data/common/float16.h"
#include "data/common/utf8.h"

namespace gatescope::data {
namespace {

// The binary16 value of bits h, from the definition (sign, exponent, mantissa), in double.
double halfValue(uint16_t h) {
    int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
    double magnitude =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    return sign ? -magnitude : magnitude;
}

TEST(Float16, WideningIsExactForEveryPattern) {
    for (uint32_t h = 0; h < 65536; ++h) {
        double want = halfValue(static_cast<uint16_t>(h));
        float got = halfToFloat(static_cast<uint16_t>(h));
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(got)) << h;
        else
            EXPECT_EQ(static_cast<double>(got), want) << h;
    }
}

TEST(Float16, RoundsToNearestEven) {
    std::vector<std::pair<double, uint16_t>> finite;  // positive finite halves, ascending
    for (uint16_t h = 0; h < 0x7c00; ++h)
        finite.emplace_back(halfValue(h), h);
    std::mt19937 rng(5);
    std::vector<float> inputs = {0.0f,  1.0f,     65504.0f, 65519.0f, 65520.0f,
                                 1e-8f, 2.98e-8f, 5.96e-8f, 6.1e-5f,  3.0e-5f};
    std::uniform_real_distribution<float> exponent(-26.0f, 16.5f);
    for (int i = 0; i < 200000; ++i)
        inputs.push_back(std::exp2(exponent(rng)));
    for (float x : inputs) {
        // Nearest by search; ties to the even pattern; beyond 65520 is infinity.
        double v = x;
        uint16_t want;
        if (v >= 65520.0) {
            want = 0x7c00;
        } else {
            auto upper = std::lower_bound(finite.begin(), finite.end(), std::pair{v, uint16_t(0)});
            if (upper == finite.end()) {
                want = finite.back().second;  // between 65504 and 65520
            } else if (upper == finite.begin()) {
                want = upper->second;
            } else {
                auto lower = upper - 1;
                double dl = v - lower->first, du = upper->first - v;
                want = dl < du   ? lower->second
                       : du < dl ? upper->second
                                 : ((lower->second & 1) ? upper->second : lower->second);
            }
        }
        EXPECT_EQ(floatToHalf(x), want) << x;
        EXPECT_EQ(floatToHalf(-x), want | 0x8000) << -x;
    }
    EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
    EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

TEST(Utf8, FindsInvalidSequencesAndNul) {
    EXPECT_EQ(data::firstUnstorableByte("plain"), std::nullopt);
    EXPECT_EQ(data::firstUnstorableByte("h\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82"), std::nullopt);
    EXPECT_EQ(data::firstUnstorableByte("ab\xff"), 2u);
    EXPECT_EQ(data::firstUnstorableByte("ab\xc3"), 2u);            // truncated
    EXPECT_EQ(data::firstUnstorableByte("\xc0\xaf"), 0u);          // overlong
    EXPECT_EQ(data::firstUnstorableByte("x\xed\xa0\x80"), 1u);     // surrogate
    EXPECT_EQ(data::firstUnstorableByte("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
    EXPECT_EQ(data::firstUnstorableByte(std::string("a\0b", 3)), 1u);
    EXPECT_EQ(data::firstInvalidUtf8(std::string("a\0b", 3)), std::nullopt);  // NUL is valid UTF-8
    EXPECT_EQ(data::sanitizeUtf8("a\xff"
                                 "b\xc3"),
              "a\xef\xbf\xbd"
              "b\xef\xbf\xbd");
    EXPECT_EQ(data::sanitizeUtf8("h\xc3\xa9"), "h\xc3\xa9");
}

}  // namespace
}  // namespace gatescope::data
