// GPT-2 byte-level BPE on a hand-built vocabulary (tokenizer_test_vocab.h): merge sequences worked
// out by hand, offsets, special tokens, round trips, and the two file layouts.
#include <gtest/gtest.h>

#include <thread>

#include "checkpoint_test_helpers.h"
#include "core/tokenizer/byte_level.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using Ids = std::vector<int32_t>;
using Spans = std::vector<ByteSpan>;

TEST(TokenizerByteLevel, KnownGpt2Symbols) {
    const auto& a = byteLevelAlphabet();
    EXPECT_EQ(a[' '], "\xC4\xA0");   // U+0120 'Ġ'
    EXPECT_EQ(a['\n'], "\xC4\x8A");  // U+010A 'Ċ'
    EXPECT_EQ(a[0x00], "\xC4\x80");  // U+0100 'Ā'
    EXPECT_EQ(a[0x7F], "\xC4\xA1");  // U+0121
    EXPECT_EQ(a[0xA0], "\xC5\x82");  // U+0142 'ł' (as in GPT-2's "Âł" for a no-break space)
    EXPECT_EQ(a[0xAD], "\xC5\x83");  // U+0143, the last remapped byte
    EXPECT_EQ(a['!'], "!");
    EXPECT_EQ(a[0xE9], "\xC3\xA9");  // printable Latin-1 keeps its code point
    std::string bytes;
    for (int b = 0; b < 256; ++b) {
        ASSERT_TRUE(decodeByteLevel(a[b], bytes));
        EXPECT_EQ(static_cast<uint8_t>(bytes.back()), b);
    }
}

TEST(TokenizerBpe, HandWorkedMergeSequences) {
    auto tok = toyTokenizer();
    ASSERT_NE(tok, nullptr);
    // "lower": lo(0) -> low(1) -> er(2) -> lower(4).
    // " newest": Ġn(5) -> ew(6) -> es(8) -> est(9); "n ew"(7) never applies, Ġ took the n.
    auto e = tok->encode("lower newest");
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->ids, (Ids{kLower, kSpaceN, kEw, kEst}));
    EXPECT_EQ(e->offsets, (Spans{{0, 5}, {5, 7}, {7, 9}, {9, 12}}));
    // " lower": lo, low, er, then Ġlow (rank 3) beats lower (rank 4).
    EXPECT_EQ(tok->encode(" lower")->ids, (Ids{kSpaceLow, kEr}));
    // "newest": ew(6), then new(7), es(8), est(9); st(10) loses to es.
    EXPECT_EQ(tok->encode("newest")->ids, (Ids{kNew, kEst}));
    // Five a's: (a a) merges leftmost first, then (aa aa).
    EXPECT_EQ(tok->encode("aaaaa")->ids, (Ids{kAaaa, 'a'}));
    // No merges: one id per byte; "é" is two bytes.
    auto accent = tok->encode("\xC3\xA9!");
    EXPECT_EQ(accent->ids, (Ids{0xC3, 0xA9, '!'}));
    EXPECT_EQ(accent->offsets, (Spans{{0, 1}, {1, 2}, {2, 3}}));
    EXPECT_EQ(tok->tokenText(0xC3), "\\xC3");
    EXPECT_EQ(tok->tokenText(kSpaceLow), " low");
    EXPECT_TRUE(tok->encode("")->ids.empty());
}

TEST(TokenizerBpe, SpecialTokensAreMatchedBeforePreTokenization) {
    auto tok = toyTokenizer();
    auto e = tok->encode("lower<|endoftext|>newest");
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->ids, (Ids{kLower, kEndOfText, kNew, kEst}));
    EXPECT_EQ(e->offsets, (Spans{{0, 5}, {5, 18}, {18, 21}, {21, 24}}));
    EXPECT_EQ(tok->tokenText(kEndOfText), "<|endoftext|>");
    EXPECT_EQ(tok->bosId(), kEndOfText);
    EXPECT_FALSE(tok->addsBos());
    EXPECT_EQ(tok->vocabSize(), 270);
}

TEST(TokenizerBpe, BosAndPrefixSpaceOptions) {
    Gpt2BpeTokenizer::Options options;
    options.addBos = true;
    options.addPrefixSpace = true;
    auto tok = toyTokenizer(options);
    ASSERT_NE(tok, nullptr);
    auto e = tok->encode("lower");
    // BOS, then " lower" -> Ġlow er; the added space belongs to no original byte.
    EXPECT_EQ(e->ids, (Ids{kEndOfText, kSpaceLow, kEr}));
    EXPECT_EQ(e->offsets, (Spans{{0, 0}, {0, 3}, {3, 5}}));
    EXPECT_TRUE(tok->addsBos());
}

TEST(TokenizerBpe, RoundTripsAndDecodeOffsets) {
    auto tok = toyTokenizer();
    const std::string samples[] = {
        "",
        "lower newest",
        "  leading and trailing  ",
        "tabs\tand\nnew\n\nlines\r\n",
        "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
        "emoji \xF0\x9F\x98\x80\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!",
        "quotes \"'s\\ and <|endoftext|> inside",
    };
    for (const std::string& s : samples) {
        auto e = tok->encode(s);
        ASSERT_TRUE(e.ok()) << s;
        ASSERT_EQ(e->ids.size(), e->offsets.size());
        auto d = tok->decodeWithOffsets(e->ids);
        ASSERT_TRUE(d.ok());
        EXPECT_EQ(d->text, s);
        // Without a BOS or prefix space, decode offsets equal encode offsets.
        EXPECT_EQ(d->offsets, e->offsets) << s;
        std::string joined;
        for (const ByteSpan& span : e->offsets)
            joined += s.substr(span.start, span.end - span.start);
        EXPECT_EQ(joined, s);
    }
}

TEST(TokenizerBpe, VeryLongWordMergesInRankOrder) {
    auto tok = toyTokenizer();
    // One 100000-letter pre-token: all (a a) merges (rank 11) come before (aa aa) (rank 12), so the
    // result is 25000 "aaaa". A quadratic merge loop would not finish in test time.
    auto e = tok->encode(std::string(100000, 'a'));
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->ids, Ids(25000, kAaaa));
    EXPECT_EQ(e->offsets.back(), (ByteSpan{99996, 100000}));
}

TEST(TokenizerBpe, ConcurrentEncodesAgreeWithSequentialOnes) {
    auto tok = toyTokenizer();
    std::vector<std::string> texts;
    for (int i = 0; i < 64; ++i) {
        texts.push_back("lower newest " + std::string(i % 7 + 1, 'a') + " doc " +
                        std::to_string(i));
    }
    std::vector<Ids> expected;
    for (const auto& t : texts)
        expected.push_back(tok->encode(t)->ids);
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int w = 0; w < 4; ++w) {
        threads.emplace_back([&, w] {
            for (int round = 0; round < 20; ++round) {
                for (std::size_t i = 0; i < texts.size(); ++i) {
                    if (tok->encode(texts[i])->ids != expected[i]) ++mismatches[w];
                }
            }
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(TokenizerBpe, Errors) {
    auto tok = toyTokenizer();
    auto invalid = tok->encode("ok\xE2\x82");
    ASSERT_FALSE(invalid.ok());
    EXPECT_NE(invalid.error().message.find("byte offset 2"), std::string::npos);
    auto outOfRange = tok->decode(Ids{1, 2, 270});
    ASSERT_FALSE(outOfRange.ok());
    EXPECT_NE(outOfRange.error().message.find("token 2"), std::string::npos);
    EXPECT_EQ(tok->tokenText(-1), "<invalid id -1>");

    auto badMerge = Gpt2BpeTokenizer::fromData(toyVocab(), {{"q", "zz"}}, {});
    ASSERT_FALSE(badMerge.ok());
    EXPECT_EQ(badMerge.error().object, "q zz");
    auto duplicate = Gpt2BpeTokenizer::fromData({{"a", 0}, {"b", 0}}, {}, {});
    ASSERT_FALSE(duplicate.ok());
    // An id of 2^31 - 1 (the fuzzer's input: a table of 64 GB) is refused before any table.
    auto huge = Gpt2BpeTokenizer::fromData({{"a", 0}, {"b", 2147483647}}, {}, {});
    ASSERT_FALSE(huge.ok());
    EXPECT_NE(huge.error().message.find("id 2147483647 is past the largest supported token id"),
              std::string::npos)
        << huge.error().message;
    EXPECT_EQ(huge.error().object, "b");
    Gpt2BpeTokenizer::Options needsBos;
    needsBos.bosToken = "<s>";
    EXPECT_FALSE(Gpt2BpeTokenizer::fromData(toyVocab(), kToyMerges, needsBos).ok());
}

TEST(TokenizerBpe, LoadsTokenizerJsonWithStringOrPairMerges) {
    TempDir dir;
    nlohmann::json pairs = nlohmann::json::array();
    nlohmann::json strings = nlohmann::json::array();
    for (const auto& [a, b] : kToyMerges) {
        pairs.push_back({a, b});
        strings.push_back(a + " " + b);
    }
    nlohmann::json vocab = toyVocabJson();
    vocab.erase("<|endoftext|>");  // comes from added_tokens instead
    for (const auto& merges : {pairs, strings}) {
        nlohmann::json root = {
            {"version", "1.0"},
            {"added_tokens",
             {{{"id", kEndOfText}, {"content", "<|endoftext|>"}, {"special", true}}}},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
        writeFile(dir / "tokenizer.json", root.dump());
        auto tok = Gpt2BpeTokenizer::fromTokenizerJson(dir / "tokenizer.json", {});
        ASSERT_TRUE(tok.ok()) << tok.error().describe();
        EXPECT_EQ((*tok)->encode("lower<|endoftext|> newest")->ids,
                  (Ids{kLower, kEndOfText, kSpaceN, kEw, kEst}));
        EXPECT_EQ((*tok)->vocabSize(), 270);
        const auto identity = (*tok)->identity();
        EXPECT_EQ(identity["kind"], "gpt2_bpe");
        EXPECT_EQ(identity["files"]["tokenizer.json"].get<std::string>().size(), 64u);
    }
}

TEST(TokenizerBpe, RefusesTokenizerJsonThatIsNotByteLevelBpe) {
    TempDir dir;
    nlohmann::json unigram = {{"model", {{"type", "Unigram"}, {"vocab", nlohmann::json::array()}}}};
    writeFile(dir / "tokenizer.json", unigram.dump());
    auto u = Gpt2BpeTokenizer::fromTokenizerJson(dir / "tokenizer.json", {});
    ASSERT_FALSE(u.ok());
    EXPECT_EQ(u.error().kind, ErrorKind::Unsupported);
    EXPECT_EQ(u.error().object, "model.type");

    nlohmann::json metaspace = {
        {"pre_tokenizer", {{"type", "Metaspace"}}},
        {"model", {{"type", "BPE"}, {"vocab", toyVocabJson()}, {"merges", {}}}}};
    writeFile(dir / "tokenizer.json", metaspace.dump());
    auto m = Gpt2BpeTokenizer::fromTokenizerJson(dir / "tokenizer.json", {});
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().object, "pre_tokenizer");
    EXPECT_NE(m.error().file.find("tokenizer.json"), std::string::npos);

    writeFile(dir / "tokenizer.json", "{not json");
    EXPECT_EQ(Gpt2BpeTokenizer::fromTokenizerJson(dir / "tokenizer.json", {}).error().kind,
              ErrorKind::Format);
}

TEST(TokenizerBpe, LoadsVocabJsonAndMergesTxt) {
    TempDir dir;
    writeFile(dir / "vocab.json", toyVocabJson().dump());
    std::string merges = toyMergesTxt();
    // CRLF line endings and a trailing blank line are tolerated.
    std::string crlf;
    for (char c : merges)
        crlf += (c == '\n') ? std::string("\r\n") : std::string(1, c);
    writeFile(dir / "merges.txt", crlf + "\r\n");
    auto tok = Gpt2BpeTokenizer::fromVocabAndMerges(dir / "vocab.json", dir / "merges.txt", {});
    ASSERT_TRUE(tok.ok()) << tok.error().describe();
    EXPECT_EQ((*tok)->encode("lower newest")->ids, (Ids{kLower, kSpaceN, kEw, kEst}));
    EXPECT_EQ((*tok)->identity()["files"].size(), 2u);

    writeFile(dir / "merges.txt", "#version: 0.2\nl o\nthree parts here\n");
    auto bad = Gpt2BpeTokenizer::fromVocabAndMerges(dir / "vocab.json", dir / "merges.txt", {});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().object, "line 3");
    EXPECT_NE(bad.error().file.find("merges.txt"), std::string::npos);

    writeFile(dir / "merges.txt", "#version: 0.2\nq zz\n");
    auto unknown = Gpt2BpeTokenizer::fromVocabAndMerges(dir / "vocab.json", dir / "merges.txt", {});
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().file.find("merges.txt"), std::string::npos);
    EXPECT_EQ(unknown.error().object, "q zz");
}

}  // namespace
}  // namespace gatescope::core
