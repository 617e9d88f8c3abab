// ByteTokenizer and the UTF-8 helpers.
#include <gtest/gtest.h>

#include "core/tokenizer/byte_tokenizer.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

using Ids = std::vector<int32_t>;

TEST(TokenizerByte, IdsAreBytesAndRoundTripExactly) {
    ByteTokenizer tok;
    EXPECT_EQ(tok.vocabSize(), 256);
    EXPECT_FALSE(tok.bosId().has_value());
    EXPECT_FALSE(tok.addsBos());
    const std::string samples[] = {"", "abc", "line\nbreak\ttab  runs", "\xC3\xA9\xF0\x9F\x98\x80",
                                   std::string("\x00\xFF\x80 invalid utf8 \xC3", 19)};
    for (const std::string& s : samples) {
        auto e = tok.encode(s);
        ASSERT_TRUE(e.ok());
        ASSERT_EQ(e->ids.size(), s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            EXPECT_EQ(e->ids[i], static_cast<uint8_t>(s[i]));
            EXPECT_EQ(e->offsets[i], (ByteSpan{i, i + 1}));
        }
        EXPECT_EQ(*tok.decode(e->ids), s);
    }
    EXPECT_EQ(tok.tokenText('a'), "a");
    EXPECT_EQ(tok.tokenText(0xE2), "\\xE2");
    EXPECT_EQ(tok.tokenText(300), "<invalid id 300>");
    EXPECT_FALSE(tok.decode(Ids{65, 256}).ok());
    EXPECT_EQ(tok.identity()["kind"], "byte");
}

TEST(TokenizerByte, OptionalBos) {
    ByteTokenizer tok(256);
    EXPECT_EQ(tok.vocabSize(), 257);
    auto e = tok.encode("hi");
    EXPECT_EQ(e->ids, (Ids{256, 'h', 'i'}));
    EXPECT_EQ(e->offsets[0], (ByteSpan{0, 0}));
    EXPECT_EQ(e->offsets[1], (ByteSpan{0, 1}));
    EXPECT_EQ(*tok.decode(Ids{'h', 'i'}), "hi");
}

TEST(TokenizerUtf8, FirstInvalidByte) {
    EXPECT_EQ(data::firstInvalidUtf8(""), std::nullopt);
    EXPECT_EQ(data::firstInvalidUtf8("ascii \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);
    EXPECT_EQ(data::firstInvalidUtf8("ab\x80"), 2u);            // lone continuation byte
    EXPECT_EQ(data::firstInvalidUtf8("a\xC0\x80"), 1u);         // overlong NUL
    EXPECT_EQ(data::firstInvalidUtf8("a\xE0\x80\x80"), 1u);     // overlong 3-byte
    EXPECT_EQ(data::firstInvalidUtf8("ab\xED\xA0\x80"), 2u);    // UTF-16 surrogate
    EXPECT_EQ(data::firstInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
    EXPECT_EQ(data::firstInvalidUtf8("abc\xE2\x82"), 3u);       // truncated at the end
    EXPECT_EQ(data::firstInvalidUtf8("\xC3\xA9\xC3("), 2u);     // bad continuation
    EXPECT_EQ(data::firstInvalidUtf8("\xFF"), 0u);
}

TEST(TokenizerUtf8, EscapesOnlyInvalidBytes) {
    EXPECT_EQ(data::escapeInvalidUtf8("\xE2\x82"), "\\xE2\\x82");
    EXPECT_EQ(data::escapeInvalidUtf8("\xE2\x82\xAC"), "\xE2\x82\xAC");
    EXPECT_EQ(data::escapeInvalidUtf8("a\xFFz"), "a\\xFFz");
    std::string out;
    data::appendUtf8(out, U'\U0001F600');
    EXPECT_EQ(out, "\xF0\x9F\x98\x80");
    out.clear();
    data::appendUtf8(out, 0xD800);
    EXPECT_EQ(out, "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace gatescope::core
