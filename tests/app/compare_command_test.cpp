// `gatescope compare`: FoX (Pro) against the Transformer (Pro) on the same tokens. Divergences are
// recomputed here from FoX's official attention probabilities and the Transformer trace's finest
// pyramid level; the loss delta from the official FoX loss and the Transformer trace's loss.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/checkpoint/safetensors_file.h"
#include "data/trace/trace_reader.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

const std::filesystem::path kCompareFox =
    std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "fox/fox-pro";
const std::filesystem::path kTfm =
    std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "fox/transformer-pro-rope";

TEST(CompareCommand, FoxVersusTransformerOnTheSameTokens) {
    if (!std::filesystem::exists(kCompareFox / "config.json")) GTEST_SKIP() << "fixtures absent";
    auto expected = core::SafetensorsFile::open(kCompareFox / "expected.safetensors").value();
    auto floats = [&](const std::string& name) {
        return core::toFloat32(*expected->find(name)).value();
    };
    const auto ids = core::toInt64(*expected->find("input_ids")).value();
    const int64_t n = ids.size();
    test::TempDir tmp;
    {
        std::ofstream out(tmp / "in.ids");
        for (auto id : ids)
            out << id << ' ';
    }
    for (auto [model, name] : {std::pair{kCompareFox, "a.h5"}, std::pair{kTfm, "b.h5"}}) {
        auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                    quoted(model), quoted(tmp / "in.ids"), quoted(tmp / name)),
                        tmp);
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    auto r =
        runCli(fmt::format("compare {} {} --json {} --csv {}", quoted(tmp / "a.h5"),
                           quoted(tmp / "b.h5"), quoted(tmp / "cmp.json"), quoted(tmp / "cmp")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto cmp = nlohmann::json::parse(test::readFile(tmp / "cmp.json"));
    EXPECT_TRUE(cmp["alignment"]["identical"].get<bool>());

    auto b = data::TraceReader::open(tmp / "b.h5").value();
    const auto lossA = floats("per_token_loss");
    const auto lossB = b->perToken().value().loss;
    double delta = 0;
    for (int64_t i = 0; i + 1 < n; ++i)
        delta += lossA[i] - lossB[i];
    EXPECT_NEAR(cmp["loss"]["mean_delta"].get<double>(), delta / (n - 1), 1e-4);

    ASSERT_EQ(cmp["layers"].size(), 2u);
    for (const auto& layer : cmp["layers"]) {
        const int l = layer["layer"];
        const auto probsA = floats(fmt::format("layers.{}.probs", l));
        for (const auto& head : layer["heads"]) {
            const int h = head["head"];
            auto tile = b->pyramidTile(l, "attention", data::Pool::Max, 0, h, 0, 0).value();
            double js = 0, tv = 0, kl = 0;
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j <= i; ++j) {
                    const double p = probsA[(h * n + i) * n + j], q = tile.at(i, j);
                    const double m = 0.5 * (p + q);
                    if (p > 0) js += 0.5 * p * std::log(p / m), kl += p * std::log(p / q);
                    if (q > 0) js += 0.5 * q * std::log(q / m);
                    tv += 0.5 * std::abs(p - q);
                }
            EXPECT_NEAR(head["js"].get<double>(), js / n, 2e-4) << l << "/" << h;
            EXPECT_NEAR(head["kl_ab"].get<double>(), kl / n, 5e-4) << l << "/" << h;
            EXPECT_NEAR(head["total_variation"].get<double>(), tv / n, 2e-4) << l << "/" << h;
            EXPECT_GT(head["js"].get<double>(), 1e-3);  // the forget gate changes attention
        }
    }
    EXPECT_TRUE(std::filesystem::exists(tmp / "cmp" / "heads.csv"));
    EXPECT_TRUE(std::filesystem::exists(tmp / "cmp" / "loss_bins.csv"));
}

}  // namespace
}  // namespace gatescope
