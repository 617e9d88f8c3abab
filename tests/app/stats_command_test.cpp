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

const std::filesystem::path kStatsFox =
    std::filesystem::path(GATESCOPE_FIXTURES_DIR) / "fox/fox-pro";

/// Traces the fox-pro fixture on `ids` into `trace`.
void traceIds(const std::vector<int64_t>& ids, const test::TempDir& tmp) {
    const auto idsFile = tmp / "in.ids", trace = tmp / "fox.h5";
    {
        std::ofstream out(idsFile);
        for (auto id : ids)
            out << id << ' ';
    }
    auto r = runCli(fmt::format("trace --model {} --input {} --input-kind ids --out {}",
                                quoted(kStatsFox), quoted(idsFile), quoted(trace)),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
}

TEST(StatsCommand, AttentionAndLossMatchTheOfficialOutputs) {
    if (!std::filesystem::exists(kStatsFox / "config.json")) GTEST_SKIP() << "fixtures absent";
    auto expected = core::SafetensorsFile::open(kStatsFox / "expected.safetensors").value();
    auto floats = [&](const std::string& name) {
        return core::toFloat32(*expected->find(name)).value();
    };
    const auto ids = core::toInt64(*expected->find("input_ids")).value();
    test::TempDir tmp;
    const auto trace = tmp / "fox.h5";
    ASSERT_NO_FATAL_FAILURE(traceIds(ids, tmp));
    test::CliResult r;
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

// Effective context and gate events at values other than the defaults, against the official
// attention probabilities and forget gates, in float64.
TEST(StatsCommand, EffectiveContextAndGateEventsMatchTheOfficialGatesAndProbabilities) {
    if (!std::filesystem::exists(kStatsFox / "config.json")) GTEST_SKIP() << "fixtures absent";
    auto expected = core::SafetensorsFile::open(kStatsFox / "expected.safetensors").value();
    auto floats = [&](const std::string& name) {
        return core::toFloat32(*expected->find(name)).value();
    };
    const auto ids = core::toInt64(*expected->find("input_ids")).value();
    const int64_t n = ids.size(), width = 20;
    constexpr double share = 0.8, retention = 0.3, eventRetention = 0.6;
    test::TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(traceIds(ids, tmp));
    auto r = runCli(fmt::format("stats {} --attention --mass-share {} --horizon-threshold {} "
                                "--bin-width {} --gate-events --event-retention {} --events 7 "
                                "--json {} --csv {}",
                                quoted(tmp / "fox.h5"), share, retention, width, eventRetention,
                                quoted(tmp / "stats.json"), quoted(tmp / "csv")),
                    tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("gate events (retention below 0.6)"), std::string::npos) << r.out;
    const auto report = nlohmann::json::parse(test::readFile(tmp / "stats.json"));
    const auto& context = report["traces"][0]["effective_context"];
    ASSERT_EQ(context["heads"].size(), 8u);  // 2 layers x 4 heads
    std::vector<double> officialRetention;
    for (const auto& head : context["heads"]) {
        const int l = head["layer"], h = head["head"];
        const auto probs = floats(fmt::format("layers.{}.probs", l));
        const auto logF = floats(fmt::format("layers.{}.log_fgate", l));
        for (int64_t b = 0; b * width < n; ++b) {
            double attention = 0, gate = 0;
            const int64_t end = std::min(n, (b + 1) * width);
            for (int64_t i = b * width; i < end; ++i) {
                double recent = 0;
                for (int64_t j = i; j >= 0; --j)
                    if ((recent += probs[(h * n + i) * n + j]) >= share) {
                        attention += double(i - j);
                        break;
                    }
                // The decay from key j - 1 to query i is prod_{t = j..i} f_t.
                int64_t d = 0;
                double sum = 0;
                for (int64_t j = i; j > 0 && (sum += logF[h * n + j]) >= std::log(retention); --j)
                    d = i - j + 1;
                gate += double(d);
            }
            EXPECT_NEAR(head["attention_horizon_by_bin"][b].get<double>(),
                        attention / double(end - b * width), 0.1)
                << "layer " << l << " head " << h << " bin " << b;
            EXPECT_NEAR(head["gate_horizon_by_bin"][b].get<double>(),
                        gate / double(end - b * width), 1e-9)
                << "layer " << l << " head " << h << " bin " << b;
        }
        for (int64_t t = 0; t < n; ++t)
            if (std::exp(double(logF[h * n + t])) < eventRetention)
                officialRetention.push_back(std::exp(double(logF[h * n + t])));
    }
    const auto& events = report["traces"][0]["gate_events"];
    EXPECT_EQ(events["total"].get<size_t>(), officialRetention.size());
    std::sort(officialRetention.begin(), officialRetention.end());
    ASSERT_EQ(events["events"].size(), std::min<size_t>(7, officialRetention.size()));
    for (size_t e = 0; e < events["events"].size(); ++e)
        EXPECT_NEAR(events["events"][e]["retention"].get<double>(), officialRetention[e], 1e-5);
    for (const char* table : {"effective_context.csv", "gate_events.csv"})
        EXPECT_TRUE(std::filesystem::exists(tmp / "csv" / table)) << table;
}

TEST(StatsCommand, MissingTraceIsAClearError) {
    test::TempDir tmp;
    auto r = runCli("stats " + quoted(tmp / "nope.h5"), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("nope.h5"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
