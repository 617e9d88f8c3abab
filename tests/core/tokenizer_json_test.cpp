// FoX's JSON convention: escaping checked against Python's json.dumps / json.loads, and the
// offsets rule of JsonGpt2Tokenizer worked out by hand.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/tokenizer/json_escape.h"
#include "core/tokenizer/json_gpt2_tokenizer.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using Ids = std::vector<int32_t>;
using Spans = std::vector<ByteSpan>;

const std::vector<std::string> kSamples = {
    "",
    "plain ascii",
    "quote \" backslash \\ slash /",
    "\n\t\r\b\f",
    std::string("\x00\x01\x1f\x7f", 4),
    "caf\xC3\xA9 na\xC3\xAFve",
    "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",                   // 日本語
    "\xF0\x9F\x98\x80 and \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD",  // astral: surrogate pairs
    "\xE2\x80\xA8 line separator, \xC2\xA0 nbsp, \xEF\xBB\xBF bom",
    "mixed \xF0\x9F\x98\x80 \xC3\xA9\n\"end\"\\",
};

TEST(TokenizerJson, EscapeMatchesPythonJsonDumps) {
    if (!havePython()) GTEST_SKIP() << "python3 not found: json.dumps ground truth unavailable";
    TempDir dir;
    std::string input;
    for (const std::string& s : kSamples)
        input += toHex(s) + "\n";
    const auto lines = runPython(dir,
                                 "import json, sys\n"
                                 "for line in sys.stdin:\n"
                                 "    s = bytes.fromhex(line.strip()).decode('utf-8')\n"
                                 "    print(json.dumps(s)[1:-1].encode('ascii').hex())\n",
                                 input);
    ASSERT_EQ(lines.size(), kSamples.size());
    for (std::size_t i = 0; i < kSamples.size(); ++i) {
        auto escaped = jsonEscapeAscii(kSamples[i]);
        ASSERT_TRUE(escaped.ok());
        EXPECT_EQ(escaped->text, fromHex(lines[i])) << "sample " << i;
        // json.loads('"' + escaped + '"') gives the text back.
        EXPECT_EQ(jsonUnescape(escaped->text).text, kSamples[i]) << "sample " << i;
    }
}

TEST(TokenizerJson, UnescapeMatchesPythonJsonLoads) {
    if (!havePython()) GTEST_SKIP() << "python3 not found: json.loads ground truth unavailable";
    TempDir dir;
    // Escapes Python's json.dumps never writes but json.loads accepts: \/, upper-case hex, raw
    // non-ASCII.
    const std::vector<std::string> escaped = {"a\\/b", "\\u00E9\\u00e9", "\\uD83D\\uDE00",
                                              "raw \xC3\xA9 ok", "\\\"\\\\"};
    std::string input;
    for (const std::string& s : escaped)
        input += toHex(s) + "\n";
    const auto lines = runPython(dir,
                                 "import json, sys\n"
                                 "for line in sys.stdin:\n"
                                 "    s = bytes.fromhex(line.strip()).decode('utf-8')\n"
                                 "    print(json.loads('\"' + s + '\"').encode('utf-8').hex())\n",
                                 input);
    ASSERT_EQ(lines.size(), escaped.size());
    for (std::size_t i = 0; i < escaped.size(); ++i) {
        EXPECT_EQ(jsonUnescape(escaped[i]).text, fromHex(lines[i])) << escaped[i];
    }
}

TEST(TokenizerJson, UnescapeIsTotalOnCutOrBadEscapes) {
    EXPECT_EQ(jsonUnescape("ab\\").text, "ab\\");
    EXPECT_EQ(jsonUnescape("\\u00").text, "\\u00");
    EXPECT_EQ(jsonUnescape("\\q").text, "\\q");
    EXPECT_EQ(jsonUnescape("\\ud83d").text, "\xEF\xBF\xBD");  // lone surrogate -> U+FFFD
}

TEST(TokenizerJson, EscapeMapPointsAtOriginalCharacters) {
    // "é\n" -> "\u00e9\n": escaped bytes 0..5 from bytes 0..2, bytes 6..7 from byte 2.
    auto escaped = jsonEscapeAscii("\xC3\xA9\n");
    ASSERT_TRUE(escaped.ok());
    EXPECT_EQ(escaped->text, "\\u00e9\\n");
    EXPECT_EQ(escaped->map.toPlain({0, 6}), (ByteSpan{0, 2}));
    EXPECT_EQ(escaped->map.toPlain({2, 4}), (ByteSpan{0, 2}));  // part of an escape: whole char
    EXPECT_EQ(escaped->map.toPlain({5, 7}), (ByteSpan{0, 3}));  // straddles two characters
    EXPECT_EQ(escaped->map.toPlain({6, 8}), (ByteSpan{2, 3}));
    EXPECT_FALSE(jsonEscapeAscii("bad \xC3").ok());
}

TEST(TokenizerJson, EncodeWithBosAndHandDerivedOffsets) {
    JsonGpt2Tokenizer tok(toyTokenizer(), /*addBos=*/true);
    // "é\nlow" escapes to \u00e9\nlow, which pre-tokenizes to  \ | u | 00 | e | 9 | \ | nlow
    // and BPE gives  92 117 48 48 101 57 92 110 low  ("n low" is no merge).
    auto e = tok.encode("\xC3\xA9\nlow");
    ASSERT_TRUE(e.ok()) << e.error().describe();
    EXPECT_EQ(e->ids, (Ids{kEndOfText, '\\', 'u', '0', '0', 'e', '9', '\\', 'n', kLow}));
    // The six tokens of "\u00e9" all map to é (bytes 0..2); "\" and "n" of "\n" both map to the
    // newline (byte 2); "low" to bytes 3..6. BOS: (0, 0).
    EXPECT_EQ(
        e->offsets,
        (Spans{{0, 0}, {0, 2}, {0, 2}, {0, 2}, {0, 2}, {0, 2}, {0, 2}, {2, 3}, {2, 3}, {3, 6}}));
    EXPECT_TRUE(tok.addsBos());
    EXPECT_EQ(tok.bosId(), kEndOfText);
    EXPECT_EQ(tok.tokenText('\\'), "\\");
    EXPECT_EQ(tok.identity()["kind"], "json_gpt2_bpe");
    EXPECT_EQ(tok.identity()["adds_bos"], true);

    // Decoding the same ids: BOS text first, then the original string; each id maps to the
    // decoded bytes of its escape unit.
    auto d = tok.decodeWithOffsets(e->ids);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->text, "<|endoftext|>\xC3\xA9\nlow");
    EXPECT_EQ(d->offsets[0], (ByteSpan{0, 13}));
    EXPECT_EQ(d->offsets[1], (ByteSpan{13, 15}));
    EXPECT_EQ(d->offsets[8], (ByteSpan{15, 16}));
    EXPECT_EQ(d->offsets[9], (ByteSpan{16, 19}));
}

TEST(TokenizerJson, RoundTripsWithoutTheBos) {
    JsonGpt2Tokenizer tok(toyTokenizer(), /*addBos=*/true);
    for (const std::string& s : kSamples) {
        auto e = tok.encode(s);
        ASSERT_TRUE(e.ok());
        ASSERT_FALSE(e->ids.empty());
        EXPECT_EQ(e->ids.front(), kEndOfText);
        const Ids body(e->ids.begin() + 1, e->ids.end());
        auto d = tok.decode(body);
        ASSERT_TRUE(d.ok());
        EXPECT_EQ(*d, s);
        for (const ByteSpan& span : e->offsets)
            EXPECT_LE(span.end, s.size());
    }
    JsonGpt2Tokenizer noBos(toyTokenizer(), /*addBos=*/false);
    EXPECT_EQ(noBos.encode("low")->ids, (Ids{kLow}));
    EXPECT_FALSE(noBos.encode("\xFF").ok());
}

}  // namespace
}  // namespace gatescope::core
