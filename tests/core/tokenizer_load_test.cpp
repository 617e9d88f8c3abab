// loadTokenizer: which tokenizer a checkpoint folder gets.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/tokenizer/load_tokenizer.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using Ids = std::vector<int32_t>;

TEST(TokenizerLoad, ByteTokenizerFromConfig) {
    TempDir dir;
    auto plain = loadTokenizer(dir.path(), {{"gatescope_tokenizer", "byte"}});
    ASSERT_TRUE(plain.ok()) << plain.error().describe();
    EXPECT_EQ((*plain)->identity()["kind"], "byte");
    EXPECT_FALSE((*plain)->addsBos());

    auto withBos =
        loadTokenizer(dir.path(), {{"gatescope_tokenizer", {{"kind", "byte"}, {"bos_id", 256}}}});
    ASSERT_TRUE(withBos.ok());
    EXPECT_EQ((*withBos)->encode("a")->ids, (Ids{256, 'a'}));

    auto bad = loadTokenizer(dir.path(), {{"gatescope_tokenizer", "sentencepiece"}});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().object, "gatescope_tokenizer");
    EXPECT_NE(bad.error().file.find("config.json"), std::string::npos);
}

TEST(TokenizerLoad, VocabAndMergesWithJsonGpt2Convention) {
    TempDir dir;
    writeFile(dir / "vocab.json", toyVocabJson().dump());
    writeFile(dir / "merges.txt", toyMergesTxt());
    // What FoX's save_model.py writes (JSONGPT2Tokenizer.from_pretrained("gpt2",
    // add_bos_token=True)).
    writeFile(dir / "tokenizer_config.json",
              R"({"tokenizer_class": "JSONGPT2Tokenizer", "add_bos_token": true,
                  "add_prefix_space": false, "bos_token": "<|endoftext|>",
                  "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                  "added_tokens_decoder": {"269": {"content": "<|endoftext|>", "special": true}}})");
    auto tok = loadTokenizer(dir.path(), nlohmann::json::object());
    ASSERT_TRUE(tok.ok()) << tok.error().describe();
    EXPECT_EQ((*tok)->identity()["kind"], "json_gpt2_bpe");
    EXPECT_TRUE((*tok)->addsBos());
    // "a\nlow" -> BOS + json-escaped "a\\nlow" -> a | \ | nlow -> 'a' '\' 'n' low.
    EXPECT_EQ((*tok)->encode("a\nlow")->ids, (Ids{kEndOfText, 'a', '\\', 'n', kLow}));
}

TEST(TokenizerLoad, PlainGpt2FromTokenizerJson) {
    TempDir dir;
    nlohmann::json root = {
        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
        {"model", {{"type", "BPE"}, {"vocab", toyVocabJson()}, {"merges", kToyMerges}}}};
    writeFile(dir / "tokenizer.json", root.dump());
    writeFile(dir / "tokenizer_config.json", R"({"tokenizer_class": "GPT2Tokenizer"})");
    auto tok = loadTokenizer(dir.path(), nlohmann::json::object());
    ASSERT_TRUE(tok.ok()) << tok.error().describe();
    EXPECT_EQ((*tok)->identity()["kind"], "gpt2_bpe");
    EXPECT_FALSE((*tok)->addsBos());
    EXPECT_EQ((*tok)->encode("a\nlow")->ids, (Ids{'a', '\n', kLow}));
}

TEST(TokenizerLoad, NothingUsable) {
    TempDir dir;
    auto none = loadTokenizer(dir.path(), {{"model_type", "fox"}});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::Missing);
    EXPECT_NE(none.error().message.find("tokenizer.json"), std::string::npos);
    EXPECT_EQ(none.error().file, dir.path().string());

    writeFile(dir / "vocab.json", "{}");
    auto half = loadTokenizer(dir.path(), {});
    ASSERT_FALSE(half.ok());
    EXPECT_NE(half.error().message.find("merges.txt is not"), std::string::npos);

    TempDir sp;
    writeFile(sp / "tokenizer.model", "sentencepiece");
    EXPECT_NE(loadTokenizer(sp.path(), {}).error().message.find("SentencePiece"),
              std::string::npos);

    writeFile(dir / "merges.txt", "#version: 0.2\n");
    writeFile(dir / "tokenizer_config.json", "[broken");
    auto broken = loadTokenizer(dir.path(), {});
    ASSERT_FALSE(broken.ok());
    EXPECT_NE(broken.error().file.find("tokenizer_config.json"), std::string::npos);
}

}  // namespace
}  // namespace gatescope::core
