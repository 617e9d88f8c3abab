// Hostile inputs through the real CLI: FIFOs, devices and huge or deeply nested files in every
// place `gatescope trace` reads from give one clear error naming the file, quickly, with nothing
// left under --out (issue 29, the input side).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/tokenizer/byte_level.h"
#include "hostile_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
using test::quoted;

constexpr int kLimit = 30;  // seconds; every case here should take well under one

std::string hostileTraceArgs(const fs::path& model, const fs::path& input, const fs::path& out,
                             const std::string& extra = {}) {
    return fmt::format("trace --model {} --input {} --out {} --threads 1 {}", quoted(model),
                       quoted(input), quoted(out), extra);
}

fs::path writeInputText(const test::TempDir& tmp, const std::string& name = "in.txt") {
    std::ofstream(tmp / name) << "Gates forget, attention remembers.";
    return tmp / name;
}

TEST(HostileInputs, FifoOrDeviceAsTheInputIsRefusedAtOnce) {
    test::TempDir tmp;
    test::makeFifo(tmp / "fifo.txt");
    test::makeFifo(tmp / "fifo.npy");
    fs::create_symlink("/dev/null", tmp / "null-link.txt");
    const std::pair<fs::path, std::string> cases[] = {
        {tmp / "fifo.txt", "not a regular file (FIFO)"},
        {tmp / "fifo.npy", "not a regular file (FIFO)"},
        {"/dev/zero", "not a regular file (character device)"},
        {"/dev/urandom", "not a regular file (character device)"},
        {tmp / "null-link.txt", "not a regular file (character device)"},
    };
    for (const auto& [input, problem] : cases) {
        auto r = test::runCliWithin(hostileTraceArgs(test::bundledFox(), input, tmp / "out.h5"),
                                    tmp, kLimit);
        test::expectClearError(r, input.string(), problem);
        EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5")) << input;
    }
    auto ids = test::runCliWithin(
        hostileTraceArgs(test::bundledFox(), "/dev/urandom", tmp / "out.h5", "--input-kind npy"),
        tmp, kLimit);
    test::expectClearError(ids, "/dev/urandom", "not a regular file (character device)");
}

TEST(HostileInputs, FifoInTheCheckpointFolderIsRefusedAtOnce) {
    test::TempDir tmp;
    const auto text = writeInputText(tmp);
    for (const char* file : {"config.json", "model.safetensors"}) {
        const auto model = tmp / (std::string("model-") + file);
        test::copyBundledFox(model);
        test::makeFifo(model / file);
        auto r = test::runCliWithin(hostileTraceArgs(model, text, tmp / "out.h5"), tmp, kLimit);
        test::expectClearError(r, (model / file).string(), "not a regular file (FIFO)");
        EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5"));
    }
    // --model naming a FIFO itself (it may name a file inside the folder, but a regular one).
    test::makeFifo(tmp / "model-fifo");
    auto r =
        test::runCliWithin(hostileTraceArgs(tmp / "model-fifo", text, tmp / "out.h5"), tmp, kLimit);
    test::expectClearError(r, (tmp / "model-fifo").string(), "not a regular file (FIFO)");
}

/// The bundled model with a GPT-2 tokenizer (vocab.json + merges.txt) instead of its byte one.
fs::path foxWithVocabFiles(const test::TempDir& tmp, const std::string& name) {
    const auto model = tmp / name;
    test::copyBundledFox(model);
    auto config = nlohmann::json::parse(test::readFile(model / "config.json"));
    config.erase("gatescope_tokenizer");
    std::ofstream(model / "config.json") << config.dump(1);
    nlohmann::json vocab = nlohmann::json::object();
    const auto& alphabet = core::byteLevelAlphabet();
    for (int b = 0; b < 256; ++b)
        vocab[alphabet[b]] = b;
    std::ofstream(model / "vocab.json") << vocab.dump();
    std::ofstream(model / "merges.txt") << "#version: 0.2\n";
    return model;
}

TEST(HostileInputs, FifoOrDeviceAsATokenizerFileIsRefusedAtOnce) {
    test::TempDir tmp;
    const auto text = writeInputText(tmp);
    // The healthy folder works, so each failure below is the damaged file's.
    const auto healthy = foxWithVocabFiles(tmp, "healthy");
    auto ok = test::runCliWithin(hostileTraceArgs(healthy, text, tmp / "ok.h5", "--no-pyramids"),
                                 tmp, 120);
    ASSERT_EQ(ok.exitCode, 0) << ok.err;

    const auto fifoVocab = foxWithVocabFiles(tmp, "fifo-vocab");
    test::makeFifo(fifoVocab / "vocab.json");
    auto r = test::runCliWithin(hostileTraceArgs(fifoVocab, text, tmp / "out.h5"), tmp, kLimit);
    test::expectClearError(r, (fifoVocab / "vocab.json").string(), "not a regular file (FIFO)");

    const auto zeroMerges = foxWithVocabFiles(tmp, "zero-merges");
    fs::remove(zeroMerges / "merges.txt");
    fs::create_symlink("/dev/zero", zeroMerges / "merges.txt");
    r = test::runCliWithin(hostileTraceArgs(zeroMerges, text, tmp / "out.h5"), tmp, kLimit);
    test::expectClearError(r, (zeroMerges / "merges.txt").string(),
                           "not a regular file (character device)");
    EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5"));
}

TEST(HostileInputs, HugeConfigIsRefusedUnread) {
    test::TempDir tmp;
    const auto model = tmp / "model";
    test::copyBundledFox(model);
    {
        std::ofstream(model / "config.json", std::ios::trunc) << "{";
        fs::resize_file(model / "config.json", uint64_t{3} << 30);  // sparse: no disk used
    }
    // Refused from its size alone: nothing is allocated or read.
    auto r = test::runCliWithin(hostileTraceArgs(model, writeInputText(tmp), tmp / "out.h5"), tmp,
                                kLimit);
    test::expectClearError(r, (model / "config.json").string(), "64.0 MiB");
    EXPECT_NE(r.err.find("3.0 GiB"), std::string::npos) << r.err;
}

TEST(HostileInputs, DeeplyNestedConfigIsRefusedBeforeTheModelRuns) {
    test::TempDir tmp;
    const auto model = tmp / "model";
    test::copyBundledFox(model);
    auto config = test::readFile(model / "config.json");
    const auto brace = config.rfind('}');
    config.insert(brace,
                  ", \"deep\": " + std::string(100000, '[') + std::string(100000, ']') + "\n");
    std::ofstream(model / "config.json", std::ios::trunc) << config;
    auto r = test::runCliWithin(hostileTraceArgs(model, writeInputText(tmp), tmp / "out.h5"), tmp,
                                kLimit);
    test::expectClearError(r, (model / "config.json").string(), "nested deeper than");
    EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5"));  // no .partial-* either
}

}  // namespace
}  // namespace gatescope
