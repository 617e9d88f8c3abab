// Every GPTGatedConfig option of GatedFWA that changes the math, at non-default values, against
// the float64 forward written from nanochat's gpt_gated.py (gatedfwa_reference_model.h), which is
// itself checked first against the official outputs of the two fixtures. Lengths are not
// multiples of the CPU attention blocks (64 / 128 keys).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/model.h"
#include "fixture_support.h"
#include "gatedfwa_reference_model.h"
#include "gatedfwa_test_support.h"

namespace gatescope {
namespace {

namespace gfwa = test::gatedfwa;

/// max |a - b| over entries where b is a number.
double maxAbsDiff(const std::vector<float>& a, const std::vector<double>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (!std::isnan(b[i])) worst = std::max(worst, std::abs(double(a[i]) - b[i]));
    return worst;
}

/// max |a - b| / max(max |b|, 1e-6) over entries where b is a number.
double relativeDiff(const std::vector<float>& a, const std::vector<double>& b) {
    double scale = 1e-6;
    for (double e : b)
        if (!std::isnan(e)) scale = std::max(scale, std::abs(e));
    return maxAbsDiff(a, b) / scale;
}

std::vector<int32_t> nextTokens(const std::vector<int32_t>& ids) {
    std::vector<int32_t> targets(ids.begin() + 1, ids.end());
    targets.push_back(-1);
    return targets;
}

// The reference reproduces the official float32 outputs of both fixtures (window 24 with gate
// and both shifts; window 40 with gate, no shifts) before it is trusted for the options below.
class GatedFwaReference : public ::testing::TestWithParam<const char*> {};

TEST_P(GatedFwaReference, ReproducesOfficialFixtureOutputs) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("gatedfwa/") + GetParam());
    const nlohmann::json json = gfwa::readJson(dir / "config.json")["model_config"];
    gfwa::RefConfig c;
    c.vocab = json["vocab_size"];
    c.layers = json["n_layer"];
    c.heads = json["n_head"];
    c.hidden = json["n_embd"];
    c.window = json["window_size"].is_null() ? 0 : json["window_size"].get<int64_t>();
    c.gate = json["use_forgetting_gate"];
    c.kShift = json["use_k_shift"];
    c.vShift = json["use_v_shift"];
    const auto weights = gfwa::readTensors(dir / "model.safetensors");
    test::Expected expected(dir / "expected.safetensors");
    const auto ids = expected.ints("input_ids");
    const auto labels = expected.ints("labels");
    const auto ref = gfwa::runReference(c, weights, ids, labels);
    const auto raw = expected.floats("logits_raw");
    const auto loss = expected.floats("per_token_loss");
    const double logitsErr = relativeDiff(raw, ref.logitsRaw);
    const double lossErr = maxAbsDiff(loss, ref.loss);
    std::printf("[ reference] %s: logits_raw rel %.1e, per_token_loss abs %.1e\n", GetParam(),
                logitsErr, lossErr);
    EXPECT_LT(logitsErr, 2e-5);
    EXPECT_LT(lossErr, 2e-5);
}

INSTANTIATE_TEST_SUITE_P(GatedFwaOfficial, GatedFwaReference,
                         ::testing::Values("gatedfwa", "gatedfwa-noshift"), test::fixtureCaseName);

struct OptionCase {
    const char* name;
    gfwa::RefConfig config;
    int64_t n;
};

class GatedFwaOptions : public ::testing::TestWithParam<OptionCase> {};

TEST_P(GatedFwaOptions, MatchesFloat64Reference) {
    const auto& [name, c, n] = GetParam();
    const auto weights = gfwa::randomWeights(c, 2025u);
    const auto dir = test::scratchDir("gatedfwa", name);
    test::writeCheckpoint(dir, gfwa::configJson(c), weights);
    auto model = test::loadModelFrom(dir);
    ASSERT_TRUE(model) << model.error().describe();
    const auto ids = test::randomIds(n, c.vocab, 11u);
    const auto targets = nextTokens(ids);

    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 1;
    auto result = (*model)->forward(ids, targets, options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = gfwa::runReference(c, weights, ids, targets);

    // Returned logits are the inference output: 15 tanh(raw / 15) over the first vocab_size.
    std::vector<double> capped(ref.logitsRaw.size());
    for (std::size_t i = 0; i < capped.size(); ++i)
        capped[i] = 15.0 * std::tanh(ref.logitsRaw[i] / 15.0);
    ASSERT_EQ(result->logits.shape, (std::vector<int64_t>{n, c.vocab}));
    const double logitsErr = relativeDiff(result->logits.data, capped);
    const double lossErr = maxAbsDiff(result->loss, ref.loss);
    double paddedGap = 0.0;  // what normalizing over the padded rows would change (see docs)
    for (int64_t i = 0; i + 1 < n; ++i)
        paddedGap = std::max(paddedGap, std::abs(ref.lossPadded[i] - ref.loss[i]));
    std::printf(
        "[ options  ] %s (N %lld): logits rel %.1e, per-token loss abs %.1e "
        "(padded-vocabulary normalizer would move it by %.1e)\n",
        name, static_cast<long long>(n), logitsErr, lossErr, paddedGap);
    EXPECT_LT(logitsErr, 1e-4);
    EXPECT_LT(lossErr, 1e-4);
    for (int64_t i = 0; i + 1 < n; ++i)
        EXPECT_FALSE(std::isnan(result->loss[i])) << i;
    std::filesystem::remove_all(dir);
}

gfwa::RefConfig base(int64_t window, bool gate, bool kShift, bool vShift, int vocab = 128) {
    gfwa::RefConfig c;
    c.vocab = vocab;
    c.layers = 2;
    c.heads = 2;
    c.hidden = 64;  // head dim 32, one of the official kernel's sizes
    c.window = window;
    c.gate = gate;
    c.kShift = kShift;
    c.vShift = vShift;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    GatedFwaConfigs, GatedFwaOptions,
    ::testing::Values(
        // use_forgetting_gate false with a window: plain sliding-window attention.
        OptionCase{"sliding_window_no_gate", base(24, false, true, true), 301},
        // window_size null with the gate: full causal attention with the decay bias.
        OptionCase{"full_causal_gate", base(0, true, false, false), 200},
        OptionCase{"k_shift_only", base(40, true, true, false), 131},
        OptionCase{"v_shift_only", base(40, true, false, true), 131},
        // A window longer than the input: the same as full causal.
        OptionCase{"window_past_input", base(500, true, true, false), 200},
        // Window 1: every query reads only its own key (the gate cancels, U_i - U_i = 0).
        OptionCase{"window_one", base(1, true, true, true), 131},
        // vocab_size 203: wte and lm_head have 256 rows; logits keep 203 columns.
        OptionCase{"vocab_padding", base(24, true, true, true, 203), 200},
        // One token: ShiftLinear returns the plain projection when T == 1 (no mix with zeros).
        OptionCase{"one_token_shifted", base(24, true, true, true), 1}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
