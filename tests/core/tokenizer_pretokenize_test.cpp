// GPT-2 pre-tokenization. Every expected split below was derived by hand from the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (first alternative wins; "\s+(?!\S)" gives back the last white-space character when a
// non-space follows; a lone white-space character before a word falls through to "\s+").
#include <gtest/gtest.h>

#include "core/tokenizer/gpt2_pretokenizer.h"

namespace gatescope::core {
namespace {

std::vector<std::string> split(std::string_view text) {
    std::vector<std::string> out;
    std::size_t expectedStart = 0;
    for (const ByteSpan& s : gpt2PreTokenize(text)) {
        EXPECT_EQ(s.start, expectedStart) << "pieces must tile the text";
        EXPECT_LT(s.start, s.end);
        expectedStart = s.end;
        out.emplace_back(text.substr(s.start, s.end - s.start));
    }
    EXPECT_EQ(expectedStart, text.size());
    return out;
}

using Pieces = std::vector<std::string>;

TEST(TokenizerPreTokenize, WordsContractionsNumbersAndSpaceRuns) {
    EXPECT_EQ(split("Hello world's 2024  !!"),
              (Pieces{"Hello", " world", "'s", " 2024", " ", " !!"}));
    EXPECT_EQ(split("I'm  here\n\nnow"), (Pieces{"I", "'m", " ", " here", "\n", "\n", "now"}));
    EXPECT_EQ(split("don't"), (Pieces{"don", "'t"}));
    EXPECT_EQ(split("'ll've'd're"), (Pieces{"'ll", "'ve", "'d", "'re"}));
    EXPECT_EQ(split("'S"), (Pieces{"'", "S"}));  // contractions are lower case only
    EXPECT_EQ(split("a 'b"), (Pieces{"a", " '", "b"}));
    EXPECT_EQ(split("1,000.5"), (Pieces{"1", ",", "000", ".", "5"}));
    EXPECT_EQ(split("end.\n"), (Pieces{"end", ".", "\n"}));
}

TEST(TokenizerPreTokenize, WhiteSpaceRules) {
    EXPECT_TRUE(split("").empty());
    EXPECT_EQ(split("  "), (Pieces{"  "}));
    EXPECT_EQ(split("a   "), (Pieces{"a", "   "}));
    EXPECT_EQ(split("Hello   world"), (Pieces{"Hello", "  ", " world"}));
    EXPECT_EQ(split("x\t\ty"), (Pieces{"x", "\t", "\t", "y"}));
    EXPECT_EQ(split(" \ty"), (Pieces{" ", "\t", "y"}));
    EXPECT_EQ(split("\n"), (Pieces{"\n"}));
    EXPECT_EQ(split("a \n b"), (Pieces{"a", " \n", " b"}));
    EXPECT_EQ(split("a\xC2\xA0"
                    "b"),
              (Pieces{"a", "\xC2\xA0", "b"}));  // NBSP is white space
}

TEST(TokenizerPreTokenize, UnicodeClasses) {
    EXPECT_EQ(split("caf\xC3\xA9 42\xE2\x82\xAC \xC3\xA7"
                    "a"),  // "café 42€ ça"
              (Pieces{"caf\xC3\xA9", " 42", "\xE2\x82\xAC",
                      " \xC3\xA7"
                      "a"}));
    // Emoji and skin-tone modifier are symbols (So, Sk): one "other" run with the '!'.
    EXPECT_EQ(split("hi \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!"),
              (Pieces{"hi", " \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!"}));
    // Superscripts and vulgar fractions are numbers (No).
    EXPECT_EQ(split("x\xC2\xB2\xC2\xB3 \xC2\xBD"), (Pieces{"x", "\xC2\xB2\xC2\xB3", " \xC2\xBD"}));
    // CJK letters (Lo).
    EXPECT_EQ(split("\xE4\xBD\xA0\xE5\xA5\xBD \xE4\xB8\x96\xE7\x95\x8C"),
              (Pieces{"\xE4\xBD\xA0\xE5\xA5\xBD", " \xE4\xB8\x96\xE7\x95\x8C"}));
    // A combining accent (Mn) is neither letter nor number.
    EXPECT_EQ(split("e\xCC\x81"), (Pieces{"e", "\xCC\x81"}));
}

TEST(TokenizerPreTokenize, ClassifiesCodePoints) {
    EXPECT_EQ(classifyCodePoint(U'A'), CharClass::Letter);
    EXPECT_EQ(classifyCodePoint(U'\u00E9'), CharClass::Letter);
    // Arabic-Indic three: a number (Nd) by ICU's tables; glibc's classes (builds without ICU)
    // file it under alpha.
    EXPECT_EQ(classifyCodePoint(U'\u0663'),
              unicodeClassesFromIcu() ? CharClass::Number : CharClass::Letter);
    EXPECT_EQ(classifyCodePoint(U'\u3000'), CharClass::Space);  // ideographic space
    EXPECT_EQ(classifyCodePoint(U'\u2028'), CharClass::Space);
    EXPECT_EQ(classifyCodePoint(U'\u20AC'), CharClass::Other);
    EXPECT_EQ(classifyCodePoint(U'_'), CharClass::Other);
}

TEST(TokenizerPreTokenize, InvalidBytesAreSingleOtherCharacters) {
    EXPECT_EQ(split("a\xFF\xFE"
                    "b"),
              (Pieces{"a", "\xFF\xFE", "b"}));
}

}  // namespace
}  // namespace gatescope::core
