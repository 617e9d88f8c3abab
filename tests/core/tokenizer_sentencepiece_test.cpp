// SentencePieceTokenizer: the library's ids (checked against spm_encode), and what gatescope adds
// around them: BOS, byte offsets of byte-fallback pieces, invalid UTF-8, decoding, provenance.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/input/input.h"
#include "core/tokenizer/sentencepiece_module.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer_reference_tools.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;

// A BPE model with byte fallback trained on ASCII text only: every other character becomes
// "<0xNN>" byte pieces.
class SentencePieceTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!haveSentencePieceTools()) GTEST_SKIP() << "spm_train not on PATH (sentencepiece)";
        if (!sentencePieceAvailable()) GTEST_SKIP() << "gatescope built without SentencePiece";
        std::string corpus;
        for (int i = 0; i < 300; ++i)
            corpus += "def tokenize(text): return text.split() # line " + std::to_string(i) + "\n";
        writeFile(m_dir / "corpus.txt", corpus);
        std::string log;
        m_model = trainSentencePiece(m_dir.path(), "ascii", m_dir / "corpus.txt",
                                     "--model_type=bpe --vocab_size=320 --byte_fallback=true "
                                     "--normalization_rule_name=identity",
                                     &log);
        ASSERT_FALSE(m_model.empty()) << log;
    }

    std::unique_ptr<SentencePieceTokenizer> load(std::optional<bool> addBos) {
        SentencePieceTokenizer::Options options;
        options.addBos = addBos;
        auto tok = SentencePieceTokenizer::fromFile(m_model, options);
        EXPECT_TRUE(tok.ok()) << tok.error().describe();
        return tok ? std::move(tok).value() : nullptr;
    }

    // spm_encode's ids for one line of text.
    std::vector<int> reference(const std::string& line) {
        writeFile(m_dir / "line.txt", line + "\n");
        auto lines = spmEncodeIds(m_model, m_dir / "line.txt");
        return lines.empty() ? std::vector<int>{} : lines[0];
    }

    TempDir m_dir;
    std::filesystem::path m_model;
};

// "<0xNN>" -> NN.
int byteOf(const std::string& piece) {
    return std::stoi(piece.substr(3, 2), nullptr, 16);
}

TEST_F(SentencePieceTest, BytePiecesSpanTheirOwnBytes) {
    auto tok = load(false);
    const std::string text = "def \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 x";  // é € 😀
    auto enc = tok->encode(text);
    ASSERT_TRUE(enc.ok()) << enc.error().describe();
    EXPECT_EQ(std::vector<int>(enc->ids.begin(), enc->ids.end()), reference(text));
    int bytePieces = 0;
    for (std::size_t i = 0; i < enc->ids.size(); ++i) {
        const std::string piece = tok->tokenText(enc->ids[i]);
        if (!piece.starts_with("<0x")) continue;
        ++bytePieces;
        const ByteSpan span = enc->offsets[i];
        ASSERT_EQ(span.end, span.start + 1) << piece;
        EXPECT_EQ(static_cast<uint8_t>(text[span.start]), byteOf(piece)) << piece;
    }
    EXPECT_EQ(bytePieces, 2 + 3 + 4);
}

TEST_F(SentencePieceTest, InvalidBytesAreReadAsReplacementCharacters) {
    auto tok = load(false);
    EXPECT_TRUE(tok->acceptsInvalidUtf8());
    const std::string text = "def x\xFFy";
    auto enc = tok->encode(text);
    ASSERT_TRUE(enc.ok()) << enc.error().describe();
    EXPECT_EQ(std::vector<int>(enc->ids.begin(), enc->ids.end()), reference(text));
    // U+FFFD is EF BF BD: three byte pieces, all from the one invalid byte at offset 5.
    std::vector<int> fffd;
    for (std::size_t i = 0; i < enc->ids.size(); ++i) {
        if (enc->offsets[i] == ByteSpan{5, 6}) fffd.push_back(byteOf(tok->tokenText(enc->ids[i])));
    }
    EXPECT_EQ(fffd, (std::vector<int>{0xEF, 0xBF, 0xBD}));

    // Through readInput: the trace's source text holds U+FFFD where the file had the bad byte,
    // and the offsets point into that text.
    writeFile(m_dir / "bad.txt", text);
    InputSpec spec;
    spec.path = m_dir / "bad.txt";
    auto input = readInput(spec, tok.get());
    ASSERT_TRUE(input.ok()) << input.error().describe();
    EXPECT_EQ(input->sourceText, "def x\xEF\xBF\xBDy");
    for (std::size_t i = 0; i < input->ids.size(); ++i) {
        if (tok->tokenText(input->ids[i]) == "<0xEF>") {
            EXPECT_EQ(input->byteOffsets[i], (ByteSpan{5, 8}));
        }
    }
}

TEST_F(SentencePieceTest, BosAndDecoding) {
    auto withBos = load(std::nullopt);  // the model has <s>: added, as LlamaTokenizer does
    ASSERT_TRUE(withBos->bosId().has_value());
    EXPECT_TRUE(withBos->addsBos());
    auto enc = withBos->encode("def split");
    ASSERT_TRUE(enc.ok());
    EXPECT_EQ(enc->ids.front(), *withBos->bosId());
    EXPECT_EQ(enc->offsets.front(), (ByteSpan{0, 0}));
    std::vector<int> rest(enc->ids.begin() + 1, enc->ids.end());
    EXPECT_EQ(rest, reference("def split"));

    // Decoding drops <s> and the dummy-prefix space; each id's span covers its text.
    auto decoded = withBos->decodeWithOffsets(enc->ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded->text, "def split");
    EXPECT_EQ(decoded->offsets.front().start, decoded->offsets.front().end);
    EXPECT_EQ(decoded->offsets.back().end, decoded->text.size());
    EXPECT_FALSE(withBos->decode(std::vector<int32_t>{withBos->vocabSize()}).ok());
    EXPECT_EQ(withBos->tokenText(-1), "<invalid id -1>");

    const auto identity = withBos->identity();
    EXPECT_EQ(identity["kind"], "sentencepiece");
    EXPECT_EQ(identity["vocab_size"], 320);
    EXPECT_EQ(identity["byte_fallback"], true);
    EXPECT_EQ(identity["files"]["ascii.model"].get<std::string>().size(), 64u);
    EXPECT_TRUE(identity["library"].get<std::string>().starts_with("SentencePiece 0."))
        << identity["library"];
}

TEST(SentencePieceModule, LoadsFromTheBuildAndReportsBadModels) {
    if (!sentencePieceAvailable()) GTEST_SKIP() << "gatescope built without SentencePiece";
    const auto candidates = sentencePieceModuleCandidates();
    ASSERT_FALSE(candidates.empty());
    EXPECT_TRUE(candidates.front().is_absolute()) << candidates.front();
    EXPECT_TRUE(std::filesystem::exists(candidates.front())) << candidates.front();
    auto api = sentencePieceModule();
    ASSERT_TRUE(api.ok()) << api.error().describe();
    EXPECT_EQ((*api)->abiVersion, GATESCOPE_SPM_ABI_VERSION);
    // Garbage is SentencePiece's error, named with the file, not a crash.
    TempDir dir;
    writeFile(dir / "tokenizer.model", "\x0a\xff\xff\xff\xff garbage");
    auto tok = SentencePieceTokenizer::fromFile(dir / "tokenizer.model", {});
    ASSERT_FALSE(tok.ok());
    EXPECT_EQ(tok.error().kind, ErrorKind::Format);
    EXPECT_NE(tok.error().message.find("not a SentencePiece model"), std::string::npos)
        << tok.error().message;
}

}  // namespace
}  // namespace gatescope::core
