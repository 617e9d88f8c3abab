// SentencePiece-style tokenizer.json (Llama / Mistral): a hand-made vocabulary whose encodings are
// worked out by hand from the tokenizers library's rules (see the comments). The same code is
// checked against transformers.js on a large text in tokenizer_reference_test.cpp.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/tokenizer/load_tokenizer.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using nlohmann::json;
using Ids = std::vector<int32_t>;
using Spans = std::vector<ByteSpan>;

constexpr int kUnk = 0, kBos = 1, kEos = 2, kNewline = 3, kC3 = 4, kA9 = 5, kMeta = 6, kA = 7,
              kB = 8, kC = 9, kMetaA = 10, kAB = 11, kMetaAB = 12, kMetaMeta = 13, kD = 14;

json vocab() {
    return {{"<unk>", kUnk},
            {"<s>", kBos},
            {"</s>", kEos},
            {"<0x0A>", kNewline},
            {"<0xC3>", kC3},
            {"<0xA9>", kA9},
            {"\u2581", kMeta},
            {"a", kA},
            {"b", kB},
            {"c", kC},
            {"\u2581a", kMetaA},
            {"ab", kAB},
            {"\u2581ab", kMetaAB},
            {"\u2581\u2581", kMetaMeta},
            {"d", kD}};
}

// Ranks: "a b" first, then "▁ a", "▁a b", "▁ ▁".
json merges(bool pairs = false) {
    if (pairs) {
        return json::array({{"a", "b"}, {"\u2581", "a"}, {"\u2581a", "b"}, {"\u2581", "\u2581"}});
    }
    return {"a b", "\u2581 a", "\u2581a b", "\u2581 \u2581"};
}

json added(int id, const char* content, bool special = true, bool normalized = false) {
    return {{"id", id},          {"content", content}, {"single_word", false},
            {"lstrip", false},   {"rstrip", false},    {"normalized", normalized},
            {"special", special}};
}

// Llama 2's pipeline: Prepend "▁" and Replace " " -> "▁", no pre-tokenizer.
json legacy() {
    json model = {{"type", "BPE"},        {"vocab", vocab()},      {"merges", merges()},
                  {"unk_token", "<unk>"}, {"byte_fallback", true}, {"fuse_unk", true}};
    return {{"model", model},
            {"normalizer",
             {{"type", "Sequence"},
              {"normalizers",
               {{{"type", "Prepend"}, {"prepend", "\u2581"}},
                {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
            {"pre_tokenizer", nullptr},
            {"added_tokens", {added(kUnk, "<unk>"), added(kBos, "<s>"), added(kEos, "</s>")}}};
}

json metaspace(const char* scheme, bool split) {
    json root = legacy();
    root["normalizer"] = nullptr;
    root["pre_tokenizer"] = {{"type", "Metaspace"},
                             {"replacement", "\u2581"},
                             {"prepend_scheme", scheme},
                             {"split", split}};
    return root;
}

json bosTemplate() {
    return {{"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {kBos}}}}}}};
}

struct Loaded {
    TempDir dir;
    std::unique_ptr<Tokenizer> tok;
};

std::unique_ptr<Loaded> load(const json& root, const std::string& config = {}) {
    auto out = std::make_unique<Loaded>();
    writeFile(out->dir / "tokenizer.json", root.dump());
    if (!config.empty()) writeFile(out->dir / "tokenizer_config.json", config);
    auto tok = loadTokenizer(out->dir.path(), json::object());
    EXPECT_TRUE(tok.ok()) << tok.error().describe();
    if (tok) out->tok = std::move(tok).value();
    return out;
}

Ids ids(const Tokenizer& tok, std::string_view text) {
    auto enc = tok.encode(text);
    EXPECT_TRUE(enc.ok()) << enc.error().describe();
    return enc ? enc->ids : Ids{};
}

TEST(TokenizerHfBpe, LegacyNormalizerAndMergeRanks) {
    auto t = load(legacy());
    ASSERT_TRUE(t->tok);
    EXPECT_EQ(t->tok->identity()["kind"], "hf_sentencepiece_bpe");
    // "▁ab": (a, b) has rank 0 and merges before (▁, a); (▁, ab) is no merge.
    auto ab = t->tok->encode("ab");
    ASSERT_TRUE(ab.ok());
    EXPECT_EQ(ab->ids, (Ids{kMeta, kAB}));
    EXPECT_EQ(ab->offsets, (Spans{{0, 0}, {0, 2}}));  // the prepended ▁ is no byte of the text
    // "▁a▁b": (▁, a) merges; the space is the second ▁.
    auto spaced = t->tok->encode("a b");
    ASSERT_TRUE(spaced.ok());
    EXPECT_EQ(spaced->ids, (Ids{kMetaA, kMeta, kB}));
    EXPECT_EQ(spaced->offsets, (Spans{{0, 1}, {1, 2}, {2, 3}}));
    EXPECT_EQ(ids(*t->tok, "ba"), (Ids{kMeta, kB, kA}));
    // " a" -> "▁▁a": (▁, a) at position 1 (rank 1) wins over (▁, ▁) (rank 3).
    EXPECT_EQ(ids(*t->tok, " a"), (Ids{kMeta, kMetaA}));
    EXPECT_EQ(ids(*t->tok, ""), Ids{});
    EXPECT_FALSE(t->tok->addsBos());
}

TEST(TokenizerHfBpe, ByteFallbackAndUnknownCharacters) {
    auto t = load(legacy());
    ASSERT_TRUE(t->tok);
    // é (C3 A9) has no token: its bytes' tokens, each spanning its own byte.
    auto e = t->tok->encode("\xC3\xA9");
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->ids, (Ids{kMeta, kC3, kA9}));
    EXPECT_EQ(e->offsets, (Spans{{0, 0}, {0, 1}, {1, 2}}));
    EXPECT_EQ(ids(*t->tok, "c\n"), (Ids{kMeta, kC, kNewline}));
    // x and y have neither a token nor byte tokens: one <unk> for both (fuse_unk).
    auto xy = t->tok->encode("xy");
    ASSERT_TRUE(xy.ok());
    EXPECT_EQ(xy->ids, (Ids{kMeta, kUnk}));
    EXPECT_EQ(xy->offsets[1], (ByteSpan{0, 2}));

    json unfused = legacy();
    unfused["model"]["fuse_unk"] = false;
    EXPECT_EQ(ids(*load(unfused)->tok, "xy"), (Ids{kMeta, kUnk, kUnk}));
    json noUnk = legacy();
    noUnk["model"]["unk_token"] = nullptr;
    auto t2 = load(noUnk);
    auto failed = t2->tok->encode("x");
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().message.find("\"x\""), std::string::npos);
}

TEST(TokenizerHfBpe, AddedTokensAreSplitOutFirst) {
    auto t = load(legacy());
    ASSERT_TRUE(t->tok);
    // "a" and "b" are normalized apart: each gets its own ▁ (Llama 2's known behaviour).
    auto enc = t->tok->encode("a<s>b");
    ASSERT_TRUE(enc.ok());
    EXPECT_EQ(enc->ids, (Ids{kMetaA, kBos, kMeta, kB}));
    EXPECT_EQ(enc->offsets[1], (ByteSpan{1, 4}));

    // lstrip / rstrip: the token takes the white space around it.
    json strip = legacy();
    json x = added(15, "[X]");
    x["lstrip"] = x["rstrip"] = true;
    strip["added_tokens"].push_back(x);
    auto s = load(strip);
    auto stripped = s->tok->encode("a [X] b");
    ASSERT_TRUE(stripped.ok());
    EXPECT_EQ(stripped->ids, (Ids{kMetaA, 15, kMeta, kB}));
    EXPECT_EQ(stripped->offsets[1], (ByteSpan{1, 6}));

    // single_word: "dd" inside "ddd" is no match; " ddd" -> "▁▁ddd" -> ▁▁ d d d.
    json single = legacy();
    json dd = added(16, "dd");
    dd["single_word"] = true;
    single["added_tokens"].push_back(dd);
    EXPECT_EQ(ids(*load(single)->tok, "dd ddd"), (Ids{16, kMetaMeta, kD, kD, kD}));

    // A normalized added token is found in the normalized text: "cab" as "▁cab".
    json normalized = legacy();
    normalized["added_tokens"].push_back(added(17, "cab", false, true));
    auto n = load(normalized);
    auto found = n->tok->encode("c cab");
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->ids, (Ids{kMeta, kC, 17}));
    EXPECT_EQ(found->offsets[2], (ByteSpan{1, 5}));
}

TEST(TokenizerHfBpe, MetaspacePrependSchemes) {
    // "first": only the piece at the start of the text gets a ▁.
    EXPECT_EQ(ids(*load(metaspace("first", false))->tok, "a<s>b"), (Ids{kMetaA, kBos, kB}));
    EXPECT_EQ(ids(*load(metaspace("always", false))->tok, "a<s>b"), (Ids{kMetaA, kBos, kMeta, kB}));
    EXPECT_EQ(ids(*load(metaspace("never", false))->tok, "ab"), (Ids{kAB}));
    // No second ▁ where the text starts with a space (unlike the Prepend normalizer).
    EXPECT_EQ(ids(*load(metaspace("always", false))->tok, " a"), (Ids{kMetaA}));
    // split: "▁a▁▁b" is cut before every ▁ (▁a | ▁ | ▁b), else merged as one word.
    EXPECT_EQ(ids(*load(metaspace("always", true))->tok, "a  b"), (Ids{kMetaA, kMeta, kMeta, kB}));
    EXPECT_EQ(ids(*load(metaspace("always", false))->tok, "a  b"), (Ids{kMetaA, kMetaMeta, kB}));
}

TEST(TokenizerHfBpe, BosFromTemplateUnlessTokenizerConfigSays) {
    json root = legacy();
    root["post_processor"] = bosTemplate();
    auto fromTemplate = load(root);
    EXPECT_EQ(ids(*fromTemplate->tok, "a"), (Ids{kBos, kMetaA}));
    EXPECT_TRUE(fromTemplate->tok->addsBos());
    EXPECT_EQ(fromTemplate->tok->bosId(), kBos);
    auto enc = fromTemplate->tok->encode("a");
    EXPECT_EQ(enc->offsets[0], (ByteSpan{0, 0}));

    auto off = load(root, R"({"add_bos_token": false, "bos_token": "<s>"})");
    EXPECT_EQ(ids(*off->tok, "a"), (Ids{kMetaA}));
    EXPECT_FALSE(off->tok->addsBos());
    auto eos = load(legacy(), R"({"add_bos_token": true, "add_eos_token": true,
                                  "bos_token": "<s>", "eos_token": {"content": "</s>"}})");
    EXPECT_EQ(ids(*eos->tok, "a"), (Ids{kBos, kMetaA, kEos}));
}

TEST(TokenizerHfBpe, MergesAsPairsAndIgnoreMerges) {
    json pairs = legacy();
    pairs["model"]["merges"] = merges(true);
    auto t = load(pairs);
    EXPECT_EQ(ids(*t->tok, "ab"), (Ids{kMeta, kAB}));
    EXPECT_EQ(ids(*t->tok, "a b"), (Ids{kMetaA, kMeta, kB}));
    // ignore_merges: a word that is a token ("▁ab") is that token.
    json ignore = legacy();
    ignore["model"]["ignore_merges"] = true;
    EXPECT_EQ(ids(*load(ignore)->tok, "ab"), (Ids{kMetaAB}));
}

TEST(TokenizerHfBpe, InvalidUtf8IsAnError) {
    auto t = load(legacy());
    auto bad = t->tok->encode("a\xFF");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, ErrorKind::Format);
    EXPECT_NE(bad.error().message.find("byte offset 1"), std::string::npos);
    EXPECT_FALSE(t->tok->acceptsInvalidUtf8());
}

TEST(TokenizerHfBpe, DecodeAndTokenText) {
    auto t = load(legacy());
    const Ids withBos = {kBos, kMetaA, kMeta, kB};
    auto decoded = t->tok->decodeWithOffsets(withBos);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded->text, "<s> a b");
    EXPECT_EQ(decoded->offsets, (Spans{{0, 3}, {3, 5}, {5, 6}, {6, 7}}));
    // The prepended space of the first token is dropped; byte tokens are their bytes.
    EXPECT_EQ(t->tok->decode(Ids{kMetaA, kMeta, kB}).value(), "a b");
    EXPECT_EQ(t->tok->decode(Ids{kMeta, kC3, kA9}).value(), "\xC3\xA9");
    EXPECT_FALSE(t->tok->decode(Ids{99}).ok());
    EXPECT_EQ(t->tok->tokenText(kMetaA), "\u2581a");
    EXPECT_EQ(t->tok->tokenText(kNewline), "<0x0A>");
    EXPECT_EQ(t->tok->vocabSize(), 15);
}

}  // namespace
}  // namespace gatescope::core
