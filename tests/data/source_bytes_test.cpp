// Format v2's text and factor dtypes: any input bytes (NUL, bytes that are not UTF-8) come back
// exactly from /tokens/source_bytes; token text holds U+FFFD for them; under factorsAsF16 the
// factors the recompute formula needs in float32 (lse, log_*) stay float32, bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "data/trace/trace_reader.h"
#include "data/trace/trace_schema.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(SourceBytes, NulAndInvalidBytesComeBackExactly) {
    testing::TempDir dir;
    auto s = testing::makeSample(4, 3);
    s.tokens.sourceText = std::string("a\0b\xff\xc3", 5);
    s.tokens.text = {"a", std::string("\0", 1), "b\xff", "\xc3"};
    s.tokens.byteOffsets = {{0, 1}, {1, 2}, {2, 4}, {4, 5}};
    ASSERT_TRUE(testing::writeSample(s, dir / "t.h5"));
    auto reader = TraceReader::open(dir / "t.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    auto tokens = (*reader)->tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    EXPECT_EQ(tokens->sourceText, s.tokens.sourceText);
    EXPECT_EQ(tokens->text,
              (std::vector<std::string>{"a", kReplacement, "b" + kReplacement, kReplacement}));
    EXPECT_EQ(tokens->byteOffsets, s.tokens.byteOffsets);
}

TEST(SourceBytes, EmptyTextOfAnIdInput) {
    testing::TempDir dir;
    auto s = testing::makeSample(3, 5);
    s.tokens.sourceText.clear();
    s.tokens.byteOffsets.assign(3, {0, 0});
    ASSERT_TRUE(testing::writeSample(s, dir / "ids.h5"));
    auto reader = TraceReader::open(dir / "ids.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    auto tokens = (*reader)->tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    EXPECT_EQ(tokens->sourceText, "");
}

TEST(FactorDtypes, LogSpaceFactorsStayFloat32UnderFloat16) {
    EXPECT_TRUE(schema::keepsFloat32("lse"));
    EXPECT_TRUE(schema::keepsFloat32("log_decay_cumsum"));
    EXPECT_TRUE(schema::keepsFloat32("log_normalizer"));
    EXPECT_FALSE(schema::keepsFloat32("q"));
    EXPECT_FALSE(schema::keepsFloat32("slot_probs"));
    testing::TempDir dir;
    const auto s = testing::makeSample(300, 9);
    TraceWriterOptions options;
    options.factorsAsF16 = true;
    ASSERT_TRUE(testing::writeSample(s, dir / "f16.h5", options));
    auto reader = TraceReader::open(dir / "f16.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    for (const auto& layer : (*reader)->summary().layers) {
        const auto& want = s.layers[layer.index].factors;
        for (const auto& f : layer.factors) {
            SCOPED_TRACE(f.name);
            EXPECT_EQ(f.f16, !schema::keepsFloat32(f.name));
            if (f.f16) continue;
            // float32 as given: c of 1e4 keeps its float32 step, not float16's 8
            auto got = (*reader)->factor(layer.index, f.name, 0, 0, s.n);
            ASSERT_TRUE(got) << got.error().describe();
            const auto& values = want.at(f.name).values;
            EXPECT_EQ(0, std::memcmp(got->values.data(), values.data(),
                                     got->values.size() * sizeof(float)));
        }
    }
}

}  // namespace
}  // namespace gatescope::data
