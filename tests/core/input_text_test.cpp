// readInput on text files: UTF-8 validation, tokenization, offsets into the file, ranges.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/checkpoint.h"
#include "core/input/input.h"
#include "core/tokenizer/byte_tokenizer.h"
#include "core/tokenizer/json_gpt2_tokenizer.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

using namespace gatescope::test;
using Ids = std::vector<int32_t>;
using Spans = std::vector<ByteSpan>;

TEST(InputText, TokenizesWithOffsetsTextsAndHash) {
    TempDir dir;
    const std::string text = "lower newest";
    writeFile(dir / "doc.txt", text);
    auto tok = toyTokenizer();
    auto input = readInput(specFor(dir / "doc.txt"), tok.get());
    ASSERT_TRUE(input.ok()) << input.error().describe();
    EXPECT_EQ(input->kind, InputKind::Text);
    EXPECT_EQ(input->ids, (Ids{kLower, kSpaceN, kEw, kEst}));
    EXPECT_EQ(input->sourceText, text);
    EXPECT_EQ(input->sourceTextOffset, 0);
    EXPECT_EQ(input->byteOffsets, (Spans{{0, 5}, {5, 7}, {7, 9}, {9, 12}}));
    EXPECT_EQ(input->tokenTexts, (std::vector<std::string>{"lower", " n", "ew", "est"}));
    EXPECT_EQ(input->sha256, sha256Hex(text.data(), text.size()));
    EXPECT_EQ(input->totalTokens, 4);
}

TEST(InputText, RangeSlicesTokensAndText) {
    TempDir dir;
    writeFile(dir / "doc.txt", "lower newest");
    auto tok = toyTokenizer();
    InputSpec spec = specFor(dir / "doc.txt");
    spec.begin = 1;
    spec.end = 3;
    auto input = readInput(spec, tok.get());
    ASSERT_TRUE(input.ok());
    EXPECT_EQ(input->ids, (Ids{kSpaceN, kEw}));
    EXPECT_EQ(input->sourceText, " new");
    EXPECT_EQ(input->sourceTextOffset, 5);
    EXPECT_EQ(input->byteOffsets, (Spans{{0, 2}, {2, 4}}));
    EXPECT_EQ(input->rangeBegin, 1);
    EXPECT_EQ(input->totalTokens, 4);

    spec.end = 5;
    auto outside = readInput(spec, tok.get());
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.error().kind, ErrorKind::Usage);
    EXPECT_NE(outside.error().message.find("[1, 5)"), std::string::npos);
}

TEST(InputText, JsonConventionKeepsBosWithEmptySpan) {
    TempDir dir;
    writeFile(dir / "doc.txt", "\xC3\xA9\nlow");
    JsonGpt2Tokenizer tok(toyTokenizer(), true);
    auto input = readInput(specFor(dir / "doc.txt", InputKind::Text), &tok);
    ASSERT_TRUE(input.ok()) << input.error().describe();
    ASSERT_EQ(input->ids.size(), 10u);
    EXPECT_EQ(input->ids.front(), kEndOfText);
    EXPECT_EQ(input->byteOffsets.front(), (ByteSpan{0, 0}));
    EXPECT_EQ(input->byteOffsets.back(), (ByteSpan{3, 6}));
    EXPECT_EQ(input->sourceText, "\xC3\xA9\nlow");
}

TEST(InputText, InvalidUtf8NamesFileAndOffset) {
    TempDir dir;
    writeFile(dir / "bad.txt", "fine text\n then \xE2\x28\xA1 bad");
    ByteTokenizer tok;
    auto input = readInput(specFor(dir / "bad.txt"), &tok);
    ASSERT_FALSE(input.ok());
    EXPECT_EQ(input.error().kind, ErrorKind::Format);
    EXPECT_NE(input.error().file.find("bad.txt"), std::string::npos);
    EXPECT_NE(input.error().message.find("byte offset 16"), std::string::npos)
        << input.error().message;
}

TEST(InputText, NeedsATokenizerAndAnExistingFile) {
    TempDir dir;
    writeFile(dir / "doc.txt", "abc");
    auto noTok = readInput(specFor(dir / "doc.txt"), nullptr);
    ASSERT_FALSE(noTok.ok());
    EXPECT_EQ(noTok.error().kind, ErrorKind::Usage);
    ByteTokenizer tok;
    auto missing = readInput(specFor(dir / "absent.txt"), &tok);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, ErrorKind::Io);
    EXPECT_NE(missing.error().file.find("absent.txt"), std::string::npos);
}

TEST(InputText, EmptyFileGivesNoTokens) {
    TempDir dir;
    writeFile(dir / "empty.txt", "");
    ByteTokenizer tok;
    auto input = readInput(specFor(dir / "empty.txt"), &tok);
    ASSERT_TRUE(input.ok());
    EXPECT_TRUE(input->ids.empty());
    EXPECT_EQ(input->sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace gatescope::core
