// `gatescope trace` end to end: official checkpoints to traces, bad checkpoints and inputs to clear
// errors, and Ctrl-C to a clean stop.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_writer.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

const std::filesystem::path kFoxPro = std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "fox/fox-pro";

#define REQUIRE_FOX_PRO()                                  \
    if (!std::filesystem::exists(kFoxPro / "config.json")) \
    GTEST_SKIP() << "fixture " << kFoxPro << " not found (../shared/fixtures is absent)"

std::vector<float> expectedFloats(const std::string& name) {
    auto file = core::SafetensorsFile::open(kFoxPro / "expected.safetensors").value();
    return core::toFloat32(*file->find(name)).value();
}

/// Writes the fixture's input_ids as a whitespace-separated .ids file.
std::filesystem::path writeFixtureIds(const test::TempDir& tmp) {
    auto file = core::SafetensorsFile::open(kFoxPro / "expected.safetensors").value();
    auto ids = core::toInt64(*file->find("input_ids")).value();
    const auto path = tmp / "input.ids";
    std::ofstream out(path);
    for (auto id : ids)
        out << id << ' ';
    return path;
}

/// Copies the fox-pro fixture into `dir`, optionally rewriting its weights.
void copyFixture(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kFoxPro / "config.json", dir / "config.json");
    std::filesystem::copy_file(kFoxPro / "model.safetensors", dir / "model.safetensors");
}

TEST(TraceCommand, FoxProTraceHoldsTheOfficialNumbers) {
    REQUIRE_FOX_PRO();
    test::TempDir tmp;
    const auto out = tmp / "fox.h5";
    auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                quoted(kFoxPro), quoted(writeFixtureIds(tmp)), quoted(out)),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto reader = data::TraceReader::open(out).value();
    const int64_t n = reader->summary().nTokens;
    ASSERT_EQ(n, 96);

    // Position i's loss predicts token i + 1: the fixture's labels for all but the last position.
    auto perToken = reader->perToken().value();
    const auto loss = expectedFloats("per_token_loss");
    for (int64_t i = 0; i + 1 < n; ++i)
        EXPECT_NEAR(perToken.loss[i], loss[i], 1e-4 * (1 + loss[i]));
    EXPECT_TRUE(std::isnan(perToken.loss[n - 1]));

    for (int layer = 0; layer < 2; ++layer) {
        const auto gates = reader->gates(layer).value();
        const auto logF = expectedFloats(fmt::format("layers.{}.log_fgate", layer));
        ASSERT_EQ(gates.values.size(), logF.size());
        for (std::size_t i = 0; i < logF.size(); ++i)
            EXPECT_NEAR(gates.values[i], logF[i], 1e-5);

        // N = 96 fits one tile at level 0: the pyramid's finest level is the attention itself.
        const auto probs = expectedFloats(fmt::format("layers.{}.probs", layer));
        for (int head = 0; head < 4; ++head) {
            auto tile =
                reader->pyramidTile(layer, "attention", data::Pool::Max, 0, head, 0, 0).value();
            double maxDiff = 0;
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < n; ++j)
                    maxDiff = std::max<double>(
                        maxDiff, std::abs(tile.at(i, j) - probs[(head * n + i) * n + j]));
            EXPECT_LT(maxDiff, 1e-4) << "layer " << layer << " head " << head;
        }
    }
    auto info = runCli("info --json " + quoted(out), tmp);
    ASSERT_EQ(info.exitCode, 0) << info.err;
    auto json = nlohmann::json::parse(info.out);
    EXPECT_EQ(json["model_type"], "forgetting_transformer-project_fox");
    EXPECT_EQ(json["n_tokens"], 96);
    EXPECT_EQ(json["manifest"]["checkpoint"]["weight_sha256"].size(), 1u);
    EXPECT_EQ(json["manifest"]["input"]["kind"], "ids");
}

struct BadCheckpointCase {
    const char* name;
    std::function<void(const std::filesystem::path&)> corrupt;
    std::vector<std::string> mentions;  ///< stderr must name these
};

void rewriteWithout(const std::filesystem::path& dir, const std::string& drop,
                    const std::string& reshape = {}) {
    auto file = core::SafetensorsFile::open(kFoxPro / "model.safetensors").value();
    std::vector<core::TensorToWrite> tensors;
    for (const auto& [name, info] : file->tensors()) {
        if (name == drop) continue;
        auto shape = info.shape;
        if (name == reshape) shape = {info.numel()};
        tensors.push_back({name, info.dtype, shape, info.bytes});
    }
    ASSERT_TRUE(core::writeSafetensors(dir / "model.safetensors", tensors));
}

TEST(TraceCommand, BadCheckpointsGiveClearErrors) {
    REQUIRE_FOX_PRO();
    const std::string fgate = "model.layers.1.attn.fgate_proj.weight";
    const std::vector<BadCheckpointCase> cases = {
        {"missing tensor", [&](auto& d) { rewriteWithout(d, fgate); }, {fgate, "missing"}},
        {"wrong shape", [&](auto& d) { rewriteWithout(d, "", fgate); }, {fgate, "shape"}},
        {"unexpected tensor",
         [&](auto& d) {
             auto file = core::SafetensorsFile::open(kFoxPro / "model.safetensors").value();
             std::vector<core::TensorToWrite> tensors;
             for (const auto& [name, info] : file->tensors())
                 tensors.push_back({name, info.dtype, info.shape, info.bytes});
             const auto* extra = file->find("model.norm.weight");
             tensors.push_back(
                 {"model.layers.0.attn.surprise", extra->dtype, extra->shape, extra->bytes});
             ASSERT_TRUE(core::writeSafetensors(d / "model.safetensors", tensors));
         },
         {"model.layers.0.attn.surprise", "unexpected"}},
        {"unknown model_type",
         [](auto& d) {
             auto config = nlohmann::json::parse(test::readFile(d / "config.json"));
             config["model_type"] = "mystery_former";
             std::ofstream(d / "config.json") << config.dump();
         },
         {"config.json", "mystery_former"}},
        {"truncated weights",
         [](auto& d) { std::filesystem::resize_file(d / "model.safetensors", 5000); },
         {"model.safetensors"}},
        {"corrupt header",
         [](auto& d) {
             std::fstream f(d / "model.safetensors",
                            std::ios::in | std::ios::out | std::ios::binary);
             f.seekp(8);
             f.write("!!!!", 4);
         },
         {"model.safetensors"}},
        {"pickle only",
         [](auto& d) {
             std::filesystem::remove(d / "model.safetensors");
             std::ofstream(d / "pytorch_model.bin") << "\x80\x02}q\x00.";
         },
         {"pytorch_model.bin", "safetensors"}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        test::TempDir tmp;
        const auto dir = tmp / "ckpt";
        copyFixture(dir);
        c.corrupt(dir);
        const auto out = tmp / "out.h5";
        auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                    quoted(dir), quoted(writeFixtureIds(tmp)), quoted(out)),
                        tmp);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        for (const auto& word : c.mentions)
            EXPECT_NE(r.err.find(word), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out));
    }
}

TEST(TraceCommand, InvalidUtf8InputNamesTheFile) {
    test::TempDir tmp;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "model", {}));
    const auto text = tmp / "bad.txt";
    std::ofstream(text) << "fine so far \xff\xfe broken";
    auto r = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(tmp / "model"),
                                quoted(text), quoted(tmp / "out.h5")),
                    tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("bad.txt"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out.h5"));
}

TEST(TraceCommand, TextInputRecordsTokensAndOffsets) {
    test::TempDir tmp;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "model", {}));
    const std::string text = "Gates decide. Ünïcode too: 🚀\nend";
    std::ofstream(tmp / "in.txt") << text;
    auto r = runCli(fmt::format("trace --model {} --input {} --out {}", quoted(tmp / "model"),
                                quoted(tmp / "in.txt"), quoted(tmp / "t.h5")),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto reader = data::TraceReader::open(tmp / "t.h5").value();
    auto tokens = reader->tokens().value();
    EXPECT_EQ(tokens.sourceText, text);
    ASSERT_EQ(tokens.size(), static_cast<int64_t>(text.size()));  // byte-level: one token a byte
    for (int64_t i = 0; i < tokens.size(); ++i) {
        EXPECT_EQ(tokens.ids[i], static_cast<uint8_t>(text[i]));
        EXPECT_EQ(tokens.byteOffsets[i][0], i);
        EXPECT_EQ(tokens.byteOffsets[i][1], i + 1);
    }
}

TEST(TraceCommand, InterruptStopsCleanlyWithoutAFinalFile) {
    test::TempDir tmp;
    core::RandomFoxSpec spec;
    spec.layers = 6;
    spec.hiddenSize = 256;
    spec.heads = 4;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "model", spec));
    {
        std::ofstream text(tmp / "long.txt");
        for (int i = 0; i < 600; ++i)
            text << "a long document that takes a while to trace. ";
    }
    const auto out = tmp / "interrupted.h5";
    const pid_t child = fork();
    if (child == 0) {
        const std::string model = (tmp / "model").string(), input = (tmp / "long.txt").string();
        const std::string outPath = out.string();
        freopen("/dev/null", "w", stderr);
        execl(GATESCOPE_CLI, GATESCOPE_CLI, "trace", "--model", model.c_str(), "--input",
              input.c_str(), "--out", outPath.c_str(), "--threads", "1", nullptr);
        _exit(127);
    }
    // Wait until the writer has created its temporary file, then interrupt.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool started = false;
    while (!started && std::chrono::steady_clock::now() < deadline) {
        for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
            started |= entry.path().filename().string().starts_with("interrupted.h5.partial");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(started) << "the trace never started writing";
    kill(child, SIGINT);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
        EXPECT_FALSE(entry.path().filename().string().starts_with("interrupted.h5"))
            << "left behind: " << entry.path();
    }
}

}  // namespace
}  // namespace gatescope
