// `gatescope trace` with a text input on a GSA checkpoint folder as published ones come: config,
// weights and a SentencePiece tokenizer.model or a Llama-style tokenizer.json. The trace's token
// ids are compared with the outside references (spm_encode, transformers.js).
#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/tokenizer_reference_data.h"
#include "core/tokenizer_reference_tools.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

// The GSA fixture: vocabulary of 512, so a tokenizer of at most 512 pieces fits.
const std::filesystem::path kGsa = std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "gsa/gsa";

#define REQUIRE_GSA_AND_SPM()                                                                 \
    if (!std::filesystem::exists(kGsa / "config.json"))                                       \
        GTEST_SKIP() << "fixture " << kGsa << " not found (../shared/fixtures is absent)";    \
    if (!test::haveSentencePieceTools())                                                      \
        GTEST_SKIP() << "spm_train / spm_encode not on PATH (apt-get install sentencepiece)"; \
    if (!core::sentencePieceAvailable()) GTEST_SKIP() << "gatescope built without SentencePiece"

// A checkpoint folder with the fixture's config and weights, and a SentencePiece BPE model of
// 500 pieces (Llama's settings) trained here; returns the model's path (empty when spm_train
// fails, with its output in `log`).
/// The fixture's config and weights, copied into `folder` (no tokenizer yet).
void copyGsaCheckpoint(const std::filesystem::path& folder) {
    std::filesystem::create_directories(folder);
    std::filesystem::copy_file(kGsa / "config.json", folder / "config.json");
    std::filesystem::copy_file(kGsa / "model.safetensors", folder / "model.safetensors");
}

std::filesystem::path makeFolder(const test::TempDir& tmp, const std::filesystem::path& folder,
                                 std::string* log) {
    copyGsaCheckpoint(folder);
    // Mostly Python sources: at 98% character coverage the rarer scripts fall back to bytes.
    std::string corpus = test::mixedText(400'000);
    for (int i = 0; i < 2; ++i)
        corpus += test::multiScriptSample();
    std::ofstream(tmp / "corpus.txt", std::ios::binary) << corpus;
    return test::trainSentencePiece(
        tmp.path(), "spm", tmp / "corpus.txt",
        "--model_type=bpe --vocab_size=500 --byte_fallback=true --character_coverage=0.98 "
        "--normalization_rule_name=identity --remove_extra_whitespaces=false "
        "--split_digits=true --max_sentence_length=100000",
        log);
}

std::vector<int> traceIds(const std::filesystem::path& trace, nlohmann::json* manifest) {
    auto reader = data::TraceReader::open(trace);
    if (!reader) return {};
    if (manifest) *manifest = (*reader)->manifest().value();
    auto tokens = (*reader)->tokens().value();
    return {tokens.ids.begin(), tokens.ids.end()};
}

// `gatescope trace` of tmp/text.txt with the folder's tokenizer: the trace's ids and manifest.
struct TracedText {
    std::vector<int> ids;
    nlohmann::json manifest;
};
TracedText traceText(const test::TempDir& tmp, const std::filesystem::path& folder) {
    auto r = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(folder),
                                quoted(tmp / "text.txt"), quoted(tmp / "run.h5")),
                    tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    TracedText out;
    out.ids = traceIds(tmp / "run.h5", &out.manifest);
    return out;
}

/// A GSA checkpoint folder in `folder` and a SentencePiece model trained for it (`model`);
/// skips without the fixture or the SentencePiece tools.
class TraceTokenizerFolder : public ::testing::Test {
protected:
    void SetUp() override {
        REQUIRE_GSA_AND_SPM();
        std::string log;
        model = makeFolder(tmp, folder, &log);
        ASSERT_FALSE(model.empty()) << log;
    }
    test::TempDir tmp;
    const std::filesystem::path folder = tmp / "gsa";
    std::filesystem::path model;
};

TEST_F(TraceTokenizerFolder, GsaFolderWithTokenizerModel) {
    std::filesystem::copy_file(model, folder / "tokenizer.model");
    // One line (spm_encode encodes line by line): several scripts, emoji, runs of spaces.
    std::string text = test::multiScriptSample();
    std::replace(text.begin(), text.end(), '\n', ' ');
    text = text.substr(0, text.find("Thai:")) + "  tabs\tand   spaces  ";
    std::ofstream(tmp / "text.txt", std::ios::binary) << text;

    auto [ids, manifest] = traceText(tmp, folder);
    ASSERT_FALSE(HasFailure());
    const auto reference = test::spmEncodeIds(folder / "tokenizer.model", tmp / "text.txt");
    ASSERT_EQ(reference.size(), 1u);
    std::vector<int> expected = {1};  // <s>, prepended as LlamaTokenizer does
    expected.insert(expected.end(), reference[0].begin(), reference[0].end());
    EXPECT_EQ(ids, expected);
    EXPECT_EQ(manifest["tokenizer"]["kind"], "sentencepiece");
    EXPECT_TRUE(manifest["tokenizer"]["files"].contains("tokenizer.model"));
    EXPECT_EQ(manifest["tokenizer"]["adds_bos"], true);
}

TEST_F(TraceTokenizerFolder, GsaFolderWithLlamaTokenizerJson) {
    const auto vocab = test::runCommand(
        "spm_export_vocab --model=" + test::shellQuote(model.string()) + " --output_format=vocab");
    std::ofstream(folder / "tokenizer.json")
        << test::llamaTokenizerJson(vocab.out, test::LlamaJsonStyle::Legacy).dump();
    std::ofstream(folder / "tokenizer_config.json")
        << R"({"tokenizer_class": "LlamaTokenizer", "add_bos_token": true, "bos_token": "<s>"})";
    std::filesystem::copy_file(model, folder / "tokenizer.model");  // there, but not chosen
    const std::string text = test::multiScriptSample() + "\n\n  def f(x):\n\treturn x  # ok\n";
    std::ofstream(tmp / "text.txt", std::ios::binary) << text;

    auto [ids, manifest] = traceText(tmp, folder);
    ASSERT_FALSE(HasFailure());
    EXPECT_EQ(manifest["tokenizer"]["kind"], "hf_sentencepiece_bpe");
    EXPECT_TRUE(manifest["tokenizer"]["files"].contains("tokenizer.json"));
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.front(), 1);

    const auto prefix = test::hfTransformersPrefix();
    if (prefix.empty()) GTEST_SKIP() << "ids not compared: transformers.js not installed";
    std::string log;
    const auto reference = test::hfEncodeIds(prefix, folder, {tmp / "text.txt"}, &log);
    ASSERT_EQ(reference.size(), 1u) << log;
    EXPECT_EQ(ids, reference[0]);
}

TEST(TraceTokenizer, UnreadableTokenizerStillTakesTokenIds) {
    if (!std::filesystem::exists(kGsa / "config.json")) GTEST_SKIP() << "no GSA fixture";
    test::TempDir tmp;
    const auto folder = tmp / "gsa";
    copyGsaCheckpoint(folder);
    std::ofstream(folder / "tokenizer.json")
        << R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}})";
    std::ofstream(tmp / "text.txt") << "some text";
    auto text = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(folder),
                                   quoted(tmp / "text.txt"), quoted(tmp / "a.h5")),
                       tmp);
    EXPECT_NE(text.exitCode, 0);
    EXPECT_NE(text.err.find("tokenizer.json"), std::string::npos) << text.err;
    EXPECT_NE(text.err.find("WordPiece"), std::string::npos) << text.err;

    std::ofstream(tmp / "input.ids") << "1 17 300 42 511 7";
    auto ids = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(folder),
                                  quoted(tmp / "input.ids"), quoted(tmp / "b.h5")),
                      tmp);
    ASSERT_EQ(ids.exitCode, 0) << ids.err;
    nlohmann::json manifest;
    EXPECT_EQ(traceIds(tmp / "b.h5", &manifest), (std::vector<int>{1, 17, 300, 42, 511, 7}));
    EXPECT_EQ(manifest["tokenizer"]["kind"], "none");
}

}  // namespace
}  // namespace gatescope
