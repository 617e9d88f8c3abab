// `gatescope stats` on a traced official checkpoint: attention statistics against the same
// quantities computed here from the official attention probabilities, loss curves against the
// official per-token loss, and the CSV tables.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/checkpoint/safetensors_file.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

const std::filesystem::path kFoxPro = std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "fox/fox-pro";

TEST(StatsCommand, AttentionAndLossMatchTheOfficialOutputs) {
    if (!std::filesystem::exists(kFoxPro / "config.json")) GTEST_SKIP() << "fixtures absent";
    auto expected = core::SafetensorsFile::open(kFoxPro / "expected.safetensors").value();
    auto floats = [&](const std::string& name) {
        return core::toFloat32(*expected->find(name)).value();
    };
    const auto ids = core::toInt64(*expected->find("input_ids")).value();
    test::TempDir tmp;
    {
        std::ofstream out(tmp / "in.ids");
        for (auto id : ids)
            out << id << ' ';
    }
    const auto trace = tmp / "fox.h5";
    auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                quoted(kFoxPro), quoted(tmp / "in.ids"), quoted(trace)),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto json = tmp / "stats.json";
    r = runCli(fmt::format("stats {} --attention --json {} --csv {}", quoted(trace), quoted(json),
                           quoted(tmp / "csv")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("best-context loss"), std::string::npos) << r.out;
    const auto report = nlohmann::json::parse(test::readFile(json));

    const int64_t n = ids.size();
    const auto loss = floats("per_token_loss");
    double sum = 0;
    for (int64_t i = 0; i + 1 < n; ++i)
        sum += loss[i];
    EXPECT_NEAR(report["loss"]["mean_loss"].get<double>(), sum / (n - 1), 1e-4);

    const auto& layers = report["traces"][0]["attention"];
    ASSERT_EQ(layers.size(), 2u);
    for (const auto& layer : layers) {
        const int l = layer["layer"];
        const auto probs = floats(fmt::format("layers.{}.probs", l));
        for (const auto& head : layer["heads"]) {
            const int h = head["head"];
            double entropy = 0, sink = 0, argmaxDistance = 0, near = 0;
            for (int64_t i = 0; i < n; ++i) {
                int64_t arg = 0;
                for (int64_t j = 0; j <= i; ++j) {
                    const double p = probs[(h * n + i) * n + j];
                    if (p > 0) entropy -= p * std::log(p);
                    if (p > probs[(h * n + i) * n + arg]) arg = j;
                    if (j == 0 && i > 0) sink += p;
                    if (i - j == 1) near += p;
                }
                argmaxDistance += double(i - arg);
            }
            EXPECT_NEAR(head["mean_entropy"].get<double>(), entropy / n, 1e-4);
            EXPECT_NEAR(head["sink_mass"].get<double>(), sink / (n - 1), 1e-4);
            EXPECT_NEAR(head["mean_argmax_distance"].get<double>(), argmaxDistance / n, 1e-3);
            EXPECT_NEAR(head["mass_by_distance"][1].get<double>(), near / n, 1e-4);
            const double negligible = head["negligible_block_fraction"];
            EXPECT_GE(negligible, 0.0);
            EXPECT_LE(negligible, 1.0);
        }
    }
    for (const char* table :
         {"loss_by_position.csv", "loss_exp_bins.csv", "gates.csv", "attention.csv"})
        EXPECT_TRUE(std::filesystem::exists(tmp / "csv" / table)) << table;
    const auto gatesCsv = test::readFile(tmp / "csv" / "gates.csv");
    EXPECT_EQ(std::count(gatesCsv.begin(), gatesCsv.end(), '\n'), 1 + 2 * 4);  // 2 layers x 4 heads
}

TEST(StatsCommand, MissingTraceIsAClearError) {
    test::TempDir tmp;
    auto r = runCli("stats " + quoted(tmp / "nope.h5"), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("nope.h5"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
