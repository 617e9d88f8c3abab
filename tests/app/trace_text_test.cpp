// What `gatescope trace` stores of its input, checked against docs/trace-format.md: an input
// holding a NUL traces and its bytes come back exactly; a token holding part of a UTF-8 character
// is U+FFFD, not the text "\xC3"; input.sha256 is the SHA-256 (by sha256sum) of what a --range
// run traced, input.file_sha256 the whole file's; Wall stores log_decay_cumsum per channel.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "cli_runner.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
const fs::path kModels = GATESCOPE_SOURCE_DIR "/resources/models";

std::string sha256sum(const fs::path& file, const test::TempDir& tmp) {
    auto r = test::runShell("sha256sum " + test::quoted(file), tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out.substr(0, 64);
}

std::shared_ptr<data::TraceReader> trace(const fs::path& model, const fs::path& input,
                                         const test::TempDir& tmp, const std::string& extra) {
    auto r = test::runCli(
        fmt::format("trace --model {} --input {} --out {} --threads 1 "
                    "--no-pyramids {}",
                    test::quoted(model), test::quoted(input), test::quoted(tmp / "run.h5"), extra),
        tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    auto reader = data::TraceReader::open(tmp / "run.h5");
    EXPECT_TRUE(reader) << reader.error().describe();
    return reader ? *reader : nullptr;
}

TEST(TraceText, NulPartialCharactersAndTheHashOfWhatWasTraced) {
    test::TempDir tmp;
    // Byte-level: one token per byte.
    const std::string text = std::string("say ") + '\0' + " caf\xC3\xA9 now";
    std::ofstream(tmp / "in.txt", std::ios::binary) << text;
    auto reader = trace(kModels / "fox", tmp / "in.txt", tmp, "--range 2:14");
    ASSERT_TRUE(reader);
    auto tokens = reader->tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    const std::string traced = text.substr(2, 12);  // "y \0 caf\xC3\xA9 n"
    EXPECT_EQ(tokens->sourceText, traced);
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(tokens->text[2], fffd);  // NUL
    EXPECT_EQ(tokens->text[7], fffd);  // 0xC3, half of "é"
    EXPECT_EQ(tokens->text[8], fffd);  // 0xA9
    EXPECT_EQ(tokens->text[9], " ");
    for (std::size_t i = 0; i < tokens->byteOffsets.size(); ++i) {
        const auto [start, end] = tokens->byteOffsets[i];
        EXPECT_EQ(tokens->sourceText.substr(start, end - start), traced.substr(i, 1));
    }
    std::ofstream(tmp / "traced.bin", std::ios::binary) << traced;
    auto manifest = reader->manifest();
    ASSERT_TRUE(manifest) << manifest.error().describe();
    const auto& input = manifest->at("input");
    EXPECT_EQ(input.at("sha256"), sha256sum(tmp / "traced.bin", tmp));
    EXPECT_EQ(input.at("hashed"), "source_bytes");
    EXPECT_EQ(input.at("file_sha256"), sha256sum(tmp / "in.txt", tmp));
}

TEST(TraceText, TracedIdsHashAsLittleEndianInt64) {
    test::TempDir tmp;
    std::ofstream(tmp / "in.ids") << "5 200 7 65 66";
    auto reader = trace(kModels / "fox", tmp / "in.ids", tmp, "--input-kind ids --range 1:4");
    ASSERT_TRUE(reader);
    std::string bytes;
    for (int64_t id : {200, 7, 65})
        for (int b = 0; b < 8; ++b)
            bytes += static_cast<char>((id >> (8 * b)) & 0xFF);
    std::ofstream(tmp / "ids.bin", std::ios::binary) << bytes;
    auto manifest = reader->manifest();
    ASSERT_TRUE(manifest) << manifest.error().describe();
    EXPECT_EQ(manifest->at("input").at("sha256"), sha256sum(tmp / "ids.bin", tmp));
    EXPECT_EQ(manifest->at("input").at("hashed"), "ids_int64le");
}

TEST(TraceText, WallStoresItsCumulativeGatesPerChannel) {
    test::TempDir tmp;
    std::ofstream(tmp / "in.txt") << "Gates forget, attention remembers.";
    auto reader = trace(kModels / "wall", tmp / "in.txt", tmp, "");
    ASSERT_TRUE(reader);
    const auto& layer = reader->summary().layers.at(0);
    const auto* c = layer.factor("log_decay_cumsum");
    ASSERT_NE(c, nullptr);
    const int64_t gated = layer.header.extras.at("gated_channels").get<int64_t>();
    EXPECT_EQ(c->shape,
              (std::vector<int64_t>{layer.header.nHeads, reader->summary().nTokens, gated}));
}

}  // namespace
}  // namespace gatescope
