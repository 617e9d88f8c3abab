// Effective context (core/analysis/effective_context.h): the attention horizon of each query and
// the gate's memory horizon, checked against brute force written from their definitions in
// float64, at sizes that are not multiples of the 64-row and 1024-key blocks the statistics use.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/analysis/effective_context.h"
#include "core/analysis/gate_events.h"
#include "core/analysis/gate_horizon.h"
#include "core/analysis/stats_report.h"
#include "synthetic_trace.h"

namespace gatescope {
namespace {

/// The largest distance d <= i with sum_{t = i-d+1..i} g_t >= log(retention), longest over the
/// channels: the definition, summed afresh for every d.
double bruteGateHorizon(const data::Array& g, int64_t h, int64_t i, double retention) {
    const int64_t n = g.shape[1], channels = g.shape[2];
    double best = 0;
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t d = 1; d <= i; ++d) {
            double sum = 0;
            for (int64_t t = i - d + 1; t <= i; ++t)
                sum += std::min(0.0, double(g.values[(h * n + t) * channels + c]));
            if (sum >= std::log(retention)) best = std::max(best, double(d));
        }
    return best;
}

TEST(GateHorizon, MatchesTheDefinitionForScalarAndPerChannelGates) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> logGate(-0.4f, 0.0f);
    for (int channels : {1, 3}) {
        data::Array g;
        g.shape = {2, 301, channels};
        for (int64_t i = 0; i < 2 * 301 * channels; ++i)
            g.values.push_back(logGate(rng));
        g.values[5] = 0.0f;  // a fully open step
        for (int64_t h = 0; h < 2; ++h) {
            const auto horizons = core::gateHorizons(g, h, 0.37);
            ASSERT_EQ(horizons.size(), 301u);
            for (int64_t i = 0; i < 301; ++i)
                ASSERT_EQ(horizons[i], bruteGateHorizon(g, h, i, 0.37))
                    << "channels " << channels << " head " << h << " query " << i;
        }
    }
}

TEST(PositionProfile, MedianAndBinMeans) {
    auto p = core::profileOf({5, 1, 4, 2, 3, 10, 7}, 3);
    EXPECT_DOUBLE_EQ(p.median, 4);
    ASSERT_EQ(p.byBin.size(), 3u);
    EXPECT_DOUBLE_EQ(p.byBin[0], 10.0 / 3);
    EXPECT_DOUBLE_EQ(p.byBin[1], 5);
    EXPECT_DOUBLE_EQ(p.byBin[2], 7);
    EXPECT_DOUBLE_EQ(core::profileOf({4, 1, 3, 2}, 4).median, 2.5);
    EXPECT_TRUE(std::isnan(core::profileOf({}, 4).median));
}

TEST(EffectiveContext, AttentionHorizonsAndGateHorizonsLineUpWithTheLoss) {
    constexpr int64_t n = 2111;  // rows: 32 blocks of 64 and 63; keys: 2 chunks of 1024 and 63
    constexpr double share = 0.73, retention = 0.6;
    constexpr int64_t width = 100;
    std::mt19937 rng(5);
    std::lognormal_distribution<double> weight(0.0, 1.5);
    std::uniform_real_distribution<float> logGate(-0.2f, 0.0f);
    test::SyntheticTrace trace;
    trace.text.assign(n, 'x');
    for (int64_t i = 0; i < n; ++i) {
        trace.keyWeights.resize(n);
        trace.keyWeights[i] = weight(rng);
        trace.loss.push_back(i % 7 == 0 ? NAN : float(i % 5));
        trace.logGates.push_back(logGate(rng));
    }
    test::TempDir dir;
    ASSERT_TRUE(test::writeSyntheticTrace(trace, dir / "t.h5"));
    auto reader = data::TraceReader::open(dir / "t.h5").value();
    core::StatsOptions options;
    options.attention = true;
    options.linearBinWidth = width;
    options.gate.horizonThreshold = retention;
    options.attentionOptions.massShare = share;
    options.attentionOptions.threads = 2;
    auto report = core::statsReport({reader}, options);
    ASSERT_TRUE(report) << report.error().describe();
    const auto heads = core::effectiveContext(report->traces.at(0));
    ASSERT_EQ(heads.size(), 1u);
    ASSERT_TRUE(heads[0].attention && heads[0].gate);

    // Attention: the fewest most recent keys holding `share` of row i, from the float64 row.
    std::vector<double> attention(n);
    for (int64_t i = 0; i < n; ++i) {
        const auto row = test::attentionRow(trace.keyWeights, i);
        double recent = 0;
        for (int64_t j = i; j >= 0; --j)
            if ((recent += row[j]) >= share) {
                attention[i] = double(i - j);
                break;
            }
    }
    data::Array gates{{1, n, 1}, std::vector<float>(trace.logGates)};
    const int64_t bins = (n + width - 1) / width;
    ASSERT_EQ(heads[0].attention->byBin.size(), size_t(bins));
    ASSERT_EQ(heads[0].gate->byBin.size(), size_t(bins));
    ASSERT_EQ(report->traces[0].lossByBin.size(), size_t(bins));
    for (int64_t b = 0; b < bins; ++b) {
        double attentionSum = 0, gateSum = 0, lossSum = 0;
        int64_t lossCount = 0;
        const int64_t end = std::min(n, (b + 1) * width);
        for (int64_t i = b * width; i < end; ++i) {
            attentionSum += attention[i];
            gateSum += bruteGateHorizon(gates, 0, i, retention);
            if (!std::isnan(trace.loss[i])) lossSum += trace.loss[i], ++lossCount;
        }
        // float32 weights against float64: a query whose recent mass sits within rounding of the
        // share may land one key away.
        EXPECT_NEAR(heads[0].attention->byBin[b], attentionSum / double(end - b * width), 0.05)
            << "bin " << b;
        EXPECT_DOUBLE_EQ(heads[0].gate->byBin[b], gateSum / double(end - b * width)) << "bin " << b;
        EXPECT_NEAR(report->traces[0].lossByBin[b], lossSum / lossCount, 1e-6) << "bin " << b;
    }
    auto sorted = attention;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_NEAR(heads[0].attention->median, sorted[n / 2], 1.0);

    const auto json = report->toJson()["traces"][0]["effective_context"];
    EXPECT_EQ(json["bin_width"], width);
    EXPECT_DOUBLE_EQ(json["mass_share"].get<double>(), share);
    EXPECT_DOUBLE_EQ(json["heads"][0]["gate_horizon_median"].get<double>(), heads[0].gate->median);
    EXPECT_EQ(json["heads"][0]["attention_horizon_by_bin"].size(), size_t(bins));
}

TEST(EffectiveContext, AMassShareOutsideTheUnitIntervalIsAUsageError) {
    core::StatsOptions options;
    for (double share : {0.0, -0.5, 1.5, double(NAN)}) {
        options.attentionOptions.massShare = share;
        auto report = core::statsReport({}, options);
        ASSERT_FALSE(report) << share;
        EXPECT_EQ(report.error().kind, ErrorKind::Usage);
    }
}

}  // namespace
}  // namespace gatescope

namespace gatescope {
namespace {

// Gate events on a trace whose gates are written here: every event below the threshold counted,
// the strongest kept in order, with the token and the tokens before it.
TEST(GateEvents, StrongestFirstWithTheirTokens) {
    test::SyntheticTrace trace;
    trace.text = "abcdefgh";
    trace.loss.assign(8, 1.0f);
    trace.keyWeights.assign(8, 1.0);
    trace.channels = 2;
    const std::vector<float> retention = {1,   0.9, 0.3, 1, 1, 0.05, 0.3, 1,
                                          0.7, 1,   1,   1, 1, 0.2,  1,   0.31};
    for (float r : retention)
        trace.logGates.push_back(std::log(r));  // [1, 8, 2]: token t, channel c at 2 t + c
    test::TempDir dir;
    ASSERT_TRUE(test::writeSyntheticTrace(trace, dir / "t.h5"));
    auto reader = data::TraceReader::open(dir / "t.h5").value();
    core::GateEventOptions options;
    options.retention = 0.5;
    options.limit = 3;
    options.contextTokens = 2;
    auto report = core::gateEvents(*reader, options);
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_EQ(report->total, 5);  // 0.3, 0.05, 0.3, 0.2, 0.31
    ASSERT_EQ(report->events.size(), 3u);
    EXPECT_EQ(report->events[0].position, 2);  // token "c", channel 1: 0.05
    EXPECT_EQ(report->events[0].channel, 1);
    EXPECT_NEAR(report->events[0].retention, 0.05, 1e-6);
    EXPECT_EQ(report->events[0].token, "c");
    EXPECT_EQ(report->events[0].context, "abc");
    EXPECT_EQ(report->events[1].position, 6);  // 0.2
    EXPECT_EQ(report->events[1].context, "efg");
    // Two events of 0.3: channel 0 of token 1 and channel 0 of token 3; the limit keeps the
    // earlier position.
    EXPECT_EQ(report->events[2].position, 1);
    EXPECT_EQ(report->events[2].context, "ab");
    options.limit = 0;
    EXPECT_TRUE(core::gateEvents(*reader, options)->events.empty());
    for (double bad : {0.0, 1.0, -1.0}) {
        options.retention = bad;
        auto refused = core::gateEvents(*reader, options);
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().kind, ErrorKind::Usage);
    }
}

}  // namespace
}  // namespace gatescope
