// DType names/sizes and the exact 16-bit float conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/checkpoint/dtype.h"
#include "data/common/float16.h"

namespace gatescope::core {
namespace {

TEST(CheckpointDType, NamesSizesAndParsingRoundTrip) {
    const DType all[] = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                         DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};
    const std::size_t sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};
    for (std::size_t i = 0; i < std::size(all); ++i) {
        EXPECT_EQ(dtypeSize(all[i]), sizes[i]) << dtypeName(all[i]);
        EXPECT_EQ(parseDType(dtypeName(all[i])), all[i]);
    }
    EXPECT_EQ(dtypeName(DType::BF16), "BF16");
    EXPECT_EQ(dtypeName(DType::Bool), "BOOL");
    EXPECT_FALSE(parseDType("F8_E4M3").has_value());
    EXPECT_FALSE(parseDType("f32").has_value());
    EXPECT_TRUE(isFloating(DType::BF16));
    EXPECT_FALSE(isFloating(DType::I64));
    EXPECT_TRUE(isInteger(DType::U8));
    EXPECT_FALSE(isInteger(DType::Bool));
}

TEST(CheckpointDType, Bf16HandComputedValues) {
    EXPECT_EQ(data::bf16ToFloat(0x3F80), 1.0f);
    EXPECT_EQ(data::bf16ToFloat(0xC000), -2.0f);
    EXPECT_EQ(data::bf16ToFloat(0x4049), 3.140625f);               // 0x40490000 = 1.5703125 * 2
    EXPECT_EQ(data::bf16ToFloat(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
    EXPECT_EQ(data::bf16ToFloat(0x7F80), std::numeric_limits<float>::infinity());
    EXPECT_EQ(data::bf16ToFloat(0xFF80), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(data::bf16ToFloat(0x7FC0)));
    EXPECT_TRUE(std::signbit(data::bf16ToFloat(0x8000)));
}

TEST(CheckpointDType, F16HandComputedValues) {
    EXPECT_EQ(data::halfToFloat(0x3C00), 1.0f);
    EXPECT_EQ(data::halfToFloat(0xC000), -2.0f);
    EXPECT_EQ(data::halfToFloat(0x3555), 0.333251953125f);               // (1 + 341/1024) / 4
    EXPECT_EQ(data::halfToFloat(0x7BFF), 65504.0f);                      // largest finite
    EXPECT_EQ(data::halfToFloat(0x0400), std::ldexp(1.0f, -14));         // smallest normal
    EXPECT_EQ(data::halfToFloat(0x0001), std::ldexp(1.0f, -24));         // smallest subnormal
    EXPECT_EQ(data::halfToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));  // largest subnormal
    EXPECT_EQ(data::halfToFloat(0x8001), -std::ldexp(1.0f, -24));
    EXPECT_EQ(data::halfToFloat(0x7C00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(data::halfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(data::halfToFloat(0x7E00)));
    EXPECT_TRUE(std::isnan(data::halfToFloat(0x7C01)));  // signalling NaN stays NaN
    EXPECT_EQ(data::halfToFloat(0x0000), 0.0f);
    EXPECT_TRUE(std::signbit(data::halfToFloat(0x8000)));
}

// Every one of the 65536 binary16 patterns against the IEEE formula evaluated in double.
TEST(CheckpointDType, F16AllPatternsMatchFormula) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const int sign = (bits >> 15) ? -1 : 1;
        const int exponent = (bits >> 10) & 0x1F;
        const int mantissa = bits & 0x3FF;
        const float got = data::halfToFloat(static_cast<uint16_t>(bits));
        if (exponent == 31) {
            if (mantissa == 0) {
                EXPECT_EQ(got, sign * std::numeric_limits<float>::infinity());
            } else {
                EXPECT_TRUE(std::isnan(got)) << bits;
            }
            continue;
        }
        const double expected = exponent == 0
                                    ? sign * std::ldexp(mantissa / 1024.0, -14)
                                    : sign * std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
        ASSERT_EQ(static_cast<double>(got), expected) << "pattern " << bits;
    }
}

}  // namespace
}  // namespace gatescope::core
