// readInput on token ids: whitespace-separated text, .npy (headers written by hand from the
// format spec), safetensors tensors; vocabulary and range checks.
#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/safetensors_writer.h"
#include "core/input/input.h"
#include "core/tokenizer/byte_tokenizer.h"
#include "tokenizer_test_vocab.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using namespace gatescope::test;
using Ids = std::vector<int32_t>;
using Spans = std::vector<ByteSpan>;

// A version 1.0 .npy file: magic, version, header length, dict padded with spaces to a multiple
// of 64 bytes and ended by '\n', then the data.
std::string npy(const std::string& dict, const std::string& data, char major = 1) {
    std::string header = dict;
    const std::size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY", 6) + major + '\0';
    const auto length = static_cast<uint32_t>(header.size());
    out += static_cast<char>(length & 0xFF);
    out += static_cast<char>((length >> 8) & 0xFF);
    if (major != 1) {
        out += static_cast<char>((length >> 16) & 0xFF);
        out += static_cast<char>(length >> 24);
    }
    return out + header + data;
}

TEST(InputIds, WhitespaceSeparatedText) {
    TempDir dir;
    writeFile(dir / "a.ids", "  104 105\n\t33   \n");
    ByteTokenizer tok;
    auto input = readInput(specFor(dir / "a.ids"), &tok);
    ASSERT_TRUE(input.ok()) << input.error().describe();
    EXPECT_EQ(input->kind, InputKind::Ids);
    EXPECT_EQ(input->ids, (Ids{104, 105, 33}));
    EXPECT_EQ(input->sourceText, "hi!");  // decoded through the tokenizer
    EXPECT_EQ(input->byteOffsets, (Spans{{0, 1}, {1, 2}, {2, 3}}));
    EXPECT_EQ(input->tokenTexts, (std::vector<std::string>{"h", "i", "!"}));

    // A .txt file read as ids when asked; no tokenizer: texts are the numbers, no offsets.
    writeFile(dir / "b.txt", "7 8 9");
    auto plain = readInput(specFor(dir / "b.txt", InputKind::Ids), nullptr);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->ids, (Ids{7, 8, 9}));
    EXPECT_EQ(plain->tokenTexts, (std::vector<std::string>{"7", "8", "9"}));
    EXPECT_EQ(plain->byteOffsets, (Spans{{0, 0}, {0, 0}, {0, 0}}));
    EXPECT_TRUE(plain->sourceText.empty());
}

TEST(InputIds, MalformedWordNamesLineAndColumn) {
    TempDir dir;
    writeFile(dir / "bad.ids", "1 2 3\n4 5x 6\n");
    auto input = readInput(specFor(dir / "bad.ids"), nullptr);
    ASSERT_FALSE(input.ok());
    EXPECT_EQ(input.error().kind, ErrorKind::Format);
    EXPECT_NE(input.error().message.find("line 2, column 3"), std::string::npos)
        << input.error().message;
    EXPECT_NE(input.error().file.find("bad.ids"), std::string::npos);
    writeFile(dir / "big.ids", "99999999999999999999999");
    EXPECT_NE(readInput(specFor(dir / "big.ids"), nullptr).error().message.find("out of range"),
              std::string::npos);
}

TEST(InputIds, OutOfVocabularyAndNegativeIdsNameTheirPosition) {
    TempDir dir;
    writeFile(dir / "a.ids", "1 2 300 4");
    ByteTokenizer tok;
    auto input = readInput(specFor(dir / "a.ids"), &tok);
    ASSERT_FALSE(input.ok());
    EXPECT_NE(input.error().message.find("token 2 has id 300"), std::string::npos)
        << input.error().message;
    writeFile(dir / "neg.ids", "5 -1");
    auto negative = readInput(specFor(dir / "neg.ids"), nullptr);
    ASSERT_FALSE(negative.ok());
    EXPECT_NE(negative.error().message.find("token 1 has id -1"), std::string::npos);
}

TEST(InputIds, IdsAreUsedAsGivenWithoutBos) {
    TempDir dir;
    writeFile(dir / "a.ids", "108 111 119");
    Gpt2BpeTokenizer::Options options;
    options.addBos = true;
    auto tok = toyTokenizer(options);
    ASSERT_TRUE(tok->addsBos());
    auto input = readInput(specFor(dir / "a.ids"), tok.get());
    ASSERT_TRUE(input.ok());
    EXPECT_EQ(input->ids, (Ids{'l', 'o', 'w'}));
    InputSpec spec = specFor(dir / "a.ids");
    spec.begin = 1;
    auto tail = readInput(spec, tok.get());
    EXPECT_EQ(tail->ids, (Ids{'o', 'w'}));
    EXPECT_EQ(tail->sourceText, "ow");
    EXPECT_EQ(tail->sourceTextOffset, 1);
}

TEST(InputIds, NpyIntegerArrays) {
    TempDir dir;
    const std::vector<int64_t> i8 = {3, 1, 4, 1, 5};
    writeFile(dir / "a.npy",
              npy("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }", bytesOf(i8)));
    auto a = readInput(specFor(dir / "a.npy"), nullptr);
    ASSERT_TRUE(a.ok()) << a.error().describe();
    EXPECT_EQ(a->kind, InputKind::Npy);
    EXPECT_EQ(a->ids, (Ids{3, 1, 4, 1, 5}));

    const std::vector<int32_t> i4 = {9, 8, 7};
    writeFile(dir / "b.npy",
              npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 3), }", bytesOf(i4), 2));
    EXPECT_EQ(readInput(specFor(dir / "b.npy"), nullptr)->ids, (Ids{9, 8, 7}));

    const std::vector<uint16_t> u2 = {50256, 0, 65535};
    writeFile(dir / "c.npy",
              npy("{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", bytesOf(u2)));
    EXPECT_EQ(readInput(specFor(dir / "c.npy"), nullptr)->ids, (Ids{50256, 0, 65535}));

    writeFile(dir / "empty.npy",
              npy("{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", ""));
    EXPECT_TRUE(readInput(specFor(dir / "empty.npy"), nullptr)->ids.empty());
}

TEST(InputIds, NpyRefusals) {
    TempDir dir;
    struct Case {
        std::string bytes;
        const char* text;
    };
    const std::string four(16, '\0');
    const Case cases[] = {
        {npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four), "pickled"},
        {npy("{'descr': '>i4', 'fortran_order': False, 'shape': (4,), }", four), "big-endian"},
        {npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four), "integer"},
        {npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (4,), }", four),
         "structured"},
        {npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", four), "1-D"},
        {npy("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", four), "truncated"},
        {npy("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), ", four), "malformed"},
        {"not numpy at all", "magic"},
    };
    for (const Case& c : cases) {
        writeFile(dir / "x.npy", c.bytes);
        auto input = readInput(specFor(dir / "x.npy"), nullptr);
        ASSERT_FALSE(input.ok()) << c.text;
        EXPECT_NE(input.error().message.find(c.text), std::string::npos) << input.error().message;
        EXPECT_NE(input.error().file.find("x.npy"), std::string::npos);
    }
}

TEST(InputIds, SafetensorsTensor) {
    TempDir dir;
    const std::string ids = bytesOf(std::vector<int64_t>{5, 6, 7});
    const std::string row = bytesOf(std::vector<int32_t>{1, 2});
    const std::string f = bytesOf(std::vector<float>{1.0f});
    const std::vector<TensorToWrite> tensors = {
        {"input_ids", DType::I64, {3}, std::as_bytes(std::span(ids.data(), ids.size()))},
        {"row", DType::I32, {1, 2}, std::as_bytes(std::span(row.data(), row.size()))},
        {"logits", DType::F32, {1}, std::as_bytes(std::span(f.data(), f.size()))},
    };
    ASSERT_TRUE(writeSafetensors(dir / "t.safetensors", tensors).ok());
    auto byDefault = readInput(specFor(dir / "t.safetensors"), nullptr);
    ASSERT_TRUE(byDefault.ok()) << byDefault.error().describe();
    EXPECT_EQ(byDefault->kind, InputKind::Safetensors);
    EXPECT_EQ(byDefault->ids, (Ids{5, 6, 7}));

    InputSpec spec = specFor(dir / "t.safetensors");
    spec.tensorName = "row";
    EXPECT_EQ(readInput(spec, nullptr)->ids, (Ids{1, 2}));
    spec.tensorName = "logits";
    auto wrong = readInput(spec, nullptr);
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error().kind, ErrorKind::Shape);
    EXPECT_EQ(wrong.error().object, "logits");
    spec.tensorName = "absent";
    EXPECT_EQ(readInput(spec, nullptr).error().kind, ErrorKind::Missing);
}

TEST(InputIds, FixtureInputIds) {
    const fs::path expected =
        fs::path(GATESCOPE_FIXTURES_DIR) / "fox" / "fox-pro" / "expected.safetensors";
    if (!fs::exists(expected)) GTEST_SKIP() << "fixture " << expected << " absent";
    auto input = readInput(specFor(expected), nullptr);
    ASSERT_TRUE(input.ok()) << input.error().describe();
    ASSERT_EQ(input->ids.size(), 96u);
    EXPECT_EQ(input->ids.front(), 511);  // the FoX fixtures' BOS (README)
}

}  // namespace
}  // namespace gatescope::core
