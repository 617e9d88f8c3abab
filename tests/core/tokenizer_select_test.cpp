// loadTokenizer's choice among the files a downloaded checkpoint folder holds, and the errors for
// tokenizers of kinds gatescope does not read (they name the file and the kind).
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/tokenizer/load_tokenizer.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer_reference_tools.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using nlohmann::json;

json sentencePieceStyleJson() {
    json model = {{"type", "BPE"},
                  {"vocab", {{"<unk>", 0}, {"<s>", 1}, {"\u2581", 2}, {"a", 3}, {"\u2581a", 4}}},
                  {"merges", {"\u2581 a"}},
                  {"unk_token", "<unk>"},
                  {"byte_fallback", true}};
    return {{"model", model},
            {"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "\u2581"}}},
            {"added_tokens", {{{"id", 1}, {"content", "<s>"}, {"special", true}}}}};
}

json wordPieceJson() {
    return {{"model", {{"type", "WordPiece"}, {"vocab", {{"[UNK]", 0}, {"a", 1}}}}},
            {"pre_tokenizer", {{"type", "BertPreTokenizer"}}}};
}

json gpt2Json() {
    return {{"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
            {"model", {{"type", "BPE"}, {"vocab", toyVocabJson()}, {"merges", kToyMerges}}}};
}

// A SentencePiece model trained here (spm_train), or empty when the tool is absent.
std::filesystem::path trainedModel(const TempDir& dir) {
    if (!haveSentencePieceTools() || !sentencePieceAvailable()) return {};
    std::string corpus;
    for (int i = 0; i < 200; ++i)
        corpus += "the quick brown fox jumps over the lazy dog " + std::to_string(i) + "\n";
    writeFile(dir / "corpus.txt", corpus);
    return trainSentencePiece(dir.path(), "m", dir / "corpus.txt",
                              "--model_type=bpe --vocab_size=300 --byte_fallback=true");
}

TEST(TokenizerSelect, TokenizerJsonOfAReadableKindComesFirst) {
    TempDir dir;
    writeFile(dir / "tokenizer.json", sentencePieceStyleJson().dump());
    writeFile(dir / "tokenizer.model", "not read: tokenizer.json wins");
    writeFile(dir / "vocab.json", "{}");
    writeFile(dir / "merges.txt", "");
    auto tok = loadTokenizer(dir.path(), json::object());
    ASSERT_TRUE(tok.ok()) << tok.error().describe();
    EXPECT_EQ((*tok)->identity()["kind"], "hf_sentencepiece_bpe");
    EXPECT_TRUE((*tok)->identity()["files"].contains("tokenizer.json"));
    EXPECT_EQ((*tok)->encode("a")->ids, (std::vector<int32_t>{4}));

    writeFile(dir / "tokenizer.json", gpt2Json().dump());
    auto gpt2 = loadTokenizer(dir.path(), json::object());
    ASSERT_TRUE(gpt2.ok()) << gpt2.error().describe();
    EXPECT_EQ((*gpt2)->identity()["kind"], "gpt2_bpe");
}

TEST(TokenizerSelect, UnreadableTokenizerJsonFallsBackToTokenizerModel) {
    TempDir dir;
    const auto model = trainedModel(dir);
    if (model.empty()) GTEST_SKIP() << "spm_train not on PATH, or built without SentencePiece";
    const auto folder = dir / "checkpoint";
    std::filesystem::create_directories(folder);
    std::filesystem::copy_file(model, folder / "tokenizer.model");
    writeFile(folder / "tokenizer.json", wordPieceJson().dump());
    auto tok = loadTokenizer(folder, json::object());
    ASSERT_TRUE(tok.ok()) << tok.error().describe();
    const json identity = (*tok)->identity();
    EXPECT_EQ(identity["kind"], "sentencepiece");
    EXPECT_TRUE(identity["files"].contains("tokenizer.model"));
    EXPECT_NE(identity.value("selection", "").find("WordPiece"), std::string::npos);
    // The transformers LlamaTokenizer default: <s> first, unless tokenizer_config.json says not.
    EXPECT_TRUE((*tok)->addsBos());
    writeFile(folder / "tokenizer_config.json", R"({"add_bos_token": false})");
    auto noBos = loadTokenizer(folder, json::object());
    ASSERT_TRUE(noBos.ok());
    EXPECT_FALSE((*noBos)->addsBos());
    EXPECT_EQ((*noBos)->identity()["adds_bos"], false);
}

TEST(TokenizerSelect, KindsNotReadNameTheFileAndTheKind) {
    TempDir dir;
    writeFile(dir / "tokenizer.json", wordPieceJson().dump());
    auto wordPiece = loadTokenizer(dir.path(), json::object());
    ASSERT_FALSE(wordPiece.ok());
    EXPECT_EQ(wordPiece.error().kind, ErrorKind::Unsupported);
    EXPECT_EQ(wordPiece.error().file, (dir / "tokenizer.json").string());
    EXPECT_NE(wordPiece.error().message.find("WordPiece"), std::string::npos);
    EXPECT_NE(wordPiece.error().message.find("token ids"), std::string::npos);

    json unigram = {{"model", {{"type", "Unigram"}, {"vocab", {{"<unk>", 0.0}}}}}};
    writeFile(dir / "tokenizer.json", unigram.dump());
    EXPECT_NE(loadTokenizer(dir.path(), {}).error().message.find("Unigram"), std::string::npos);

    // Llama 3 / Qwen: byte-level BPE behind a Sequence pre-tokenizer.
    json llama3 = gpt2Json();
    llama3["pre_tokenizer"] = {{"type", "Sequence"},
                               {"pretokenizers", {{{"type", "Split"}}, {{"type", "ByteLevel"}}}}};
    writeFile(dir / "tokenizer.json", llama3.dump());
    auto seq = loadTokenizer(dir.path(), {});
    ASSERT_FALSE(seq.ok());
    EXPECT_NE(seq.error().message.find("Sequence pre-tokenizer (Split, ByteLevel)"),
              std::string::npos);
    EXPECT_EQ(seq.error().object, "pre_tokenizer");

    // ... and its tokenizer.model, which is tiktoken's format, not SentencePiece's.
    writeFile(dir / "tokenizer.model", "IQ== 0\nIg== 1\nIw== 2\n");
    auto tiktoken = loadTokenizer(dir.path(), {});
    ASSERT_FALSE(tiktoken.ok());
    EXPECT_EQ(tiktoken.error().file, (dir / "tokenizer.json").string());
    EXPECT_NE(tiktoken.error().message.find("tokenizer.model: a tiktoken"), std::string::npos);

    // With GPT-2 files beside them, those are used.
    writeFile(dir / "vocab.json", toyVocabJson().dump());
    writeFile(dir / "merges.txt", toyMergesTxt());
    auto fallback = loadTokenizer(dir.path(), {});
    ASSERT_TRUE(fallback.ok()) << fallback.error().describe();
    EXPECT_EQ((*fallback)->identity()["kind"], "gpt2_bpe");
}

TEST(TokenizerSelect, BrokenFilesAreErrorsNotFallbacks) {
    TempDir dir;
    writeFile(dir / "tokenizer.json", R"({"version": "1.0"})");
    writeFile(dir / "vocab.json", toyVocabJson().dump());
    writeFile(dir / "merges.txt", toyMergesTxt());
    auto noModel = loadTokenizer(dir.path(), {});
    ASSERT_FALSE(noModel.ok());
    EXPECT_EQ(noModel.error().kind, ErrorKind::Format);
    EXPECT_EQ(noModel.error().file, (dir / "tokenizer.json").string());

    TempDir sp;
    writeFile(sp / "tokenizer.model", "\x01\x02 not a model");
    auto garbage = loadTokenizer(sp.path(), {});
    ASSERT_FALSE(garbage.ok());
    EXPECT_EQ(garbage.error().file, (sp / "tokenizer.model").string());
    EXPECT_NE(garbage.error().message.find("SentencePiece"), std::string::npos);

    json badMerge = sentencePieceStyleJson();
    badMerge["model"]["merges"] = {"\u2581 zz"};
    TempDir m;
    writeFile(m / "tokenizer.json", badMerge.dump());
    auto merge = loadTokenizer(m.path(), {});
    ASSERT_FALSE(merge.ok());
    EXPECT_EQ(merge.error().file, (m / "tokenizer.json").string());
    EXPECT_EQ(merge.error().object, "\u2581 zz");
}

}  // namespace
}  // namespace gatescope::core
