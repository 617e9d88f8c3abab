// The float64 FoX / Transformer reference (fox_reference_model.h) against the official code's own
// outputs (../shared/fixtures/fox), so that the option tests built on it can trust it.
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixture_support.h"
#include "fox_reference_model.h"

namespace gatescope {
namespace {

/// Every tensor of a safetensors file as float32, under its name.
test::TensorMap readTensors(const std::filesystem::path& file) {
    auto opened = core::SafetensorsFile::open(file);
    if (!opened) throw std::runtime_error(opened.error().describe());
    test::TensorMap out;
    for (const auto& [name, info] : (*opened)->tensors())
        out[name] = {info.shape, core::toFloat32(info).value()};
    return out;
}

/// max |actual - expected| / max |expected| over [H][N][...] arrays flattened.
double relative(const std::vector<double>& actual, const std::vector<float>& expected) {
    EXPECT_EQ(actual.size(), expected.size());
    double diff = 0, scale = 1e-12;
    for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
        diff = std::max(diff, std::abs(actual[i] - expected[i]));
        scale = std::max(scale, std::abs(double(expected[i])));
    }
    return diff / scale;
}

std::vector<double> flat(const test::ref::Mat& m) {
    std::vector<double> out;
    for (const auto& row : m)
        out.insert(out.end(), row.begin(), row.end());
    return out;
}
std::vector<double> flat(const std::vector<test::ref::Mat>& heads) {
    std::vector<double> out;
    for (const auto& m : heads) {
        auto f = flat(m);
        out.insert(out.end(), f.begin(), f.end());
    }
    return out;
}

class FoxReference : public ::testing::TestWithParam<const char*> {};

TEST_P(FoxReference, ReproducesTheOfficialFloat32Outputs) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("fox/") + GetParam());
    nlohmann::json json;
    std::ifstream(dir / "config.json") >> json;
    const auto config = test::fox::refConfigFromJson(json);
    const auto weights = readTensors(dir / "model.safetensors");
    test::Expected expected(dir / "expected.safetensors");
    const auto ids = expected.ints("input_ids");
    const auto ref = test::fox::runReference(config, weights, ids);

    // The official float32 run against the exact float64 math: float32 rounding only.
    const double logitErr = relative(flat(ref.logits), expected.floats("logits"));
    std::printf("[ ref      ] %s: logits max relative difference %.3g\n", GetParam(), logitErr);
    EXPECT_LT(logitErr, 1e-5);
    for (int l = 0; l < config.layers; ++l) {
        SCOPED_TRACE(fmt::format("layer {}", l));
        const auto& rec = ref.layers[l];
        const auto name = [&](const char* what) { return fmt::format("layers.{}.{}", l, what); };
        EXPECT_LT(relative(flat(rec.q), expected.floats(name("q"))), 1e-5);
        EXPECT_LT(relative(flat(rec.k), expected.floats(name("k"))), 1e-5);
        EXPECT_LT(relative(flat(rec.v), expected.floats(name("v"))), 1e-5);
        EXPECT_LT(relative(flat(rec.lse), expected.floats(name("lse"))), 1e-5);
        EXPECT_LT(relative(flat(rec.probs), expected.floats(name("probs"))), 1e-5);
        const auto logF = expected.floats(name("log_fgate"));
        const auto ours = flat(rec.logF);
        double worst = 0;
        for (std::size_t i = 0; i < logF.size(); ++i)
            worst = std::max(worst, std::abs(ours[i] - logF[i]));
        EXPECT_LT(worst, 1e-5);
    }
}

INSTANTIATE_TEST_SUITE_P(Official, FoxReference,
                         ::testing::Values("fox-pro", "fox-llama", "transformer-pro-rope"),
                         test::fixtureCaseName);

}  // namespace
}  // namespace gatescope
