// `gatescope trace --intervene` end to end on the bundled sample models: the intervened gates
// are what the trace stores (and its cumulative sums), patching copies another trace's gates, the
// manifest and `info` say what was changed, `compare` takes the pair; and every usage error names
// the option, exits 2 and leaves no file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

const std::filesystem::path kRepoRoot = GATESCOPE_SOURCE_DIR;
const auto kBundledFox = kRepoRoot / "resources/models/fox";
const auto kTransformer = kRepoRoot / "resources/models/transformer";

std::filesystem::path writeSampleText(const test::TempDir& tmp, const std::string& name,
                                      int bytes) {
    std::string text;
    while (static_cast<int>(text.size()) < bytes)
        text += "def wrap(text, width=70):\n    return [line for line in text.split()]\n";
    text.resize(bytes);
    const auto path = tmp / name;
    std::ofstream(path) << text;
    return path;
}

test::CliResult trace(const test::TempDir& tmp, const std::filesystem::path& model,
                      const std::filesystem::path& input, const std::filesystem::path& out,
                      const std::string& extra) {
    return runCli(fmt::format("trace --model {} --input {} --out {} --no-pyramids --threads 2 {}",
                              quoted(model), quoted(input), quoted(out), extra),
                  tmp);
}

std::shared_ptr<data::TraceReader> open(const std::filesystem::path& path) {
    auto reader = data::TraceReader::open(path);
    EXPECT_TRUE(reader) << reader.error().describe();
    return reader ? *reader : nullptr;
}

TEST(InterveneCommand, StoresTheIntervenedGatesRecordsThemAndComparesWithItsBaseline) {
    test::TempDir tmp;
    const auto input = writeSampleText(tmp, "in.txt", 300);
    ASSERT_EQ(trace(tmp, kBundledFox, input, tmp / "base.h5", "").exitCode, 0);
    auto r = trace(tmp, kBundledFox, input, tmp / "off.h5",
                   "--intervene 'gate=1@layers=1;heads=0-1' --intervene 'ablate@layers=3;heads=2'");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto base = open(tmp / "base.h5"), off = open(tmp / "off.h5");
    ASSERT_TRUE(base && off);
    const int64_t n = off->summary().nTokens;
    const auto g0 = off->gates(0).value(), b0 = base->gates(0).value();
    EXPECT_EQ(g0.values, b0.values) << "layer 0 is untouched";
    const auto g1 = off->gates(1).value(), b1 = base->gates(1).value();
    for (int h = 0; h < 4; ++h)
        for (int64_t t = 0; t < n; ++t) {
            const float got = g1.values[h * n + t];
            if (h < 2)
                EXPECT_EQ(got, 0.0f) << "head " << h << " token " << t;
            else
                EXPECT_EQ(got, b1.values[h * n + t]) << "head " << h << " token " << t;
        }
    // The stored cumulative sum is the intervened one: flat for heads 0-1.
    const auto cum = off->factor(1, "log_decay_cumsum", 1, 0, n).value();
    for (float c : cum.values)
        EXPECT_EQ(c, 0.0f);
    const auto manifest = off->manifest().value();
    ASSERT_TRUE(manifest.contains("interventions")) << manifest.dump(2);
    EXPECT_EQ(manifest["interventions"][0]["spec"], "gate=1@layers=1;heads=0-1");
    EXPECT_EQ(manifest["interventions"][1]["kind"], "ablate");
    EXPECT_FALSE(base->manifest().value().contains("interventions"));

    auto info = runCli("info " + quoted(tmp / "off.h5"), tmp);
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_NE(info.out.find("intervened   gate=1@layers=1;heads=0-1"), std::string::npos)
        << info.out;

    auto cmp = runCli(fmt::format("compare {} {} --no-attention --json {}", quoted(tmp / "base.h5"),
                                  quoted(tmp / "off.h5"), quoted(tmp / "cmp.json")),
                      tmp);
    ASSERT_EQ(cmp.exitCode, 0) << cmp.err;
    const auto json = nlohmann::json::parse(test::readFile(tmp / "cmp.json"));
    const auto lossA = base->perToken().value().loss, lossB = off->perToken().value().loss;
    double delta = 0;
    for (int64_t i = 0; i + 1 < n; ++i)
        delta += lossA[i] - lossB[i];
    EXPECT_NEAR(json["loss"]["mean_delta"].get<double>(), delta / (n - 1), 1e-4);
    EXPECT_NE(delta, 0.0) << "switching off forgetting should change the loss";
}

TEST(InterveneCommand, PatchingCopiesTheOtherTracesGates) {
    test::TempDir tmp;
    const auto input = writeSampleText(tmp, "in.txt", 200);
    ASSERT_EQ(trace(tmp, kBundledFox, input, tmp / "base.h5", "").exitCode, 0);
    // Layer 0 changed, layer 2's gates patched from the baseline: layer 2 must hold the
    // baseline's gates exactly although its input differs.
    auto r = trace(tmp, kBundledFox, input, tmp / "patched.h5",
                   fmt::format("--intervene 'log_gate*0.37@layers=0' --intervene "
                               "'gate=from:{}@layers=2;heads=1,3'",
                               (tmp / "base.h5").string()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto base = open(tmp / "base.h5"), patched = open(tmp / "patched.h5");
    ASSERT_TRUE(base && patched);
    const int64_t n = base->summary().nTokens;
    const auto b0 = base->gates(0).value(), p0 = patched->gates(0).value();
    for (std::size_t i = 0; i < b0.values.size(); ++i)
        EXPECT_NEAR(p0.values[i], 0.37f * b0.values[i], 1e-6);
    const auto b2 = base->gates(2).value(), p2 = patched->gates(2).value();
    for (int h = 0; h < 4; ++h) {
        bool same = true;
        for (int64_t t = 0; t < n; ++t)
            same = same && b2.values[h * n + t] == p2.values[h * n + t];
        EXPECT_EQ(same, h == 1 || h == 3) << "head " << h;
    }
    EXPECT_EQ(patched->manifest().value()["interventions"][1]["patch_trace"],
              std::filesystem::absolute(tmp / "base.h5").string());
}

struct UsageCase {
    const char* name;
    const char* model;  ///< "fox" or "transformer"
    std::string intervene;
    const char* says;
};

class InterveneUsage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(InterveneUsage, ExitsTwoNamingTheOptionAndLeavesNoFile) {
    test::TempDir tmp;
    const auto input = writeSampleText(tmp, "in.txt", 120);
    const auto& c = GetParam();
    std::string intervene = c.intervene;
    if (intervene.find("OTHER") != std::string::npos) {
        // A trace of other tokens to patch from.
        const auto otherInput = writeSampleText(tmp, "other.txt", 90);
        ASSERT_EQ(trace(tmp, kBundledFox, otherInput, tmp / "other.h5", "").exitCode, 0);
        intervene.replace(intervene.find("OTHER"), 5, (tmp / "other.h5").string());
    }
    const auto out = tmp / "out.h5";
    auto r = trace(tmp, std::string(c.model) == "fox" ? kBundledFox : kTransformer, input, out,
                   "--intervene '" + intervene + "'");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("--intervene"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
        EXPECT_EQ(entry.path().filename().string().find("out.h5"), std::string::npos)
            << entry.path();
}

INSTANTIATE_TEST_SUITE_P(
    Errors, InterveneUsage,
    ::testing::Values(
        UsageCase{"unknown_kind", "fox", "forget=0@layers=0", "unknown intervention"},
        UsageCase{"bad_constant", "fox", "gate=1.2", "0 < C <= 1"},
        UsageCase{"bad_range", "fox", "gate=1@layers=2-1", "indices like"},
        UsageCase{"layer_outside", "fox", "gate=1@layers=4", "outside the model's 4 layers (0-3)"},
        UsageCase{"head_outside", "fox", "ablate@heads=9", "outside the model's 4 heads (0-3)"},
        UsageCase{"channel_of_scalar_gate", "fox", "gate=1@channels=2", "one scalar per head"},
        UsageCase{"gate_on_transformer", "transformer", "gate=1@layers=0", "has no forget gate"},
        UsageCase{"patch_other_tokens", "fox", "gate=from:OTHER@layers=0", "same tokens"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
