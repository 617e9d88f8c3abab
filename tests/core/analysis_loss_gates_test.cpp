// Loss curves and gate statistics against values worked out by hand from their definitions.
#include <cmath>

#include <gtest/gtest.h>

#include "core/analysis/gate_stats.h"
#include "core/analysis/loss_curves.h"

namespace gatescope {
namespace {

TEST(LossCurves, MeansBinsSmoothingAndPerplexity) {
    core::PositionLossAccumulator acc;
    const float nan = NAN;
    acc.add(std::vector<float>{1, 2, 3, 4, nan});  // last position has no target
    acc.add(std::vector<float>{3, 4, 5});
    const auto mean = acc.mean();
    ASSERT_EQ(mean.size(), 5u);
    EXPECT_DOUBLE_EQ(mean[0], 2.0);
    EXPECT_DOUBLE_EQ(mean[2], 4.0);
    EXPECT_DOUBLE_EQ(mean[3], 4.0);
    EXPECT_TRUE(std::isnan(mean[4]));
    EXPECT_EQ(acc.count(), (std::vector<int64_t>{2, 2, 2, 1, 0}));

    // Width 2: {0,1} -> (2*2 + 3*2)/4 = 2.5; {2,3} -> (4*2 + 4*1)/3 = 4; {4} empty.
    const auto lin = core::linearBins(mean, acc.count(), 2);
    ASSERT_EQ(lin.size(), 3u);
    EXPECT_DOUBLE_EQ(lin[0].meanLoss, 2.5);
    EXPECT_DOUBLE_EQ(lin[1].meanLoss, 4.0);
    EXPECT_EQ(lin[2].count, 0);

    // One bin per octave of context length l = i + 1: [1,2) -> i 0; [2,4) -> i 1..2; [4,8) -> 3..4.
    const auto exp = core::exponentialBins(mean, acc.count(), 1);
    ASSERT_EQ(exp.size(), 3u);
    EXPECT_EQ(exp[1].begin, 1);
    EXPECT_EQ(exp[1].end, 3);
    EXPECT_DOUBLE_EQ(exp[1].meanLoss, 3.5);
    EXPECT_NEAR(exp[1].center, 2 * std::sqrt(2.0), 1e-12);
    const auto best = core::bestContext(exp);
    EXPECT_DOUBLE_EQ(best.loss, 2.0);
    EXPECT_NEAR(best.contextLength, std::sqrt(2.0), 1e-12);

    // Window 3, edge-truncated, NaN ignored: position 0 -> mean(2, 3); 4 -> mean(4).
    const auto smooth = core::centeredMovingAverage(mean, 3);
    EXPECT_DOUBLE_EQ(smooth[0], 2.5);
    EXPECT_DOUBLE_EQ(smooth[1], 3.0);
    EXPECT_DOUBLE_EQ(smooth[4], 4.0);

    const auto ppl = core::runningPerplexity(mean);
    EXPECT_NEAR(ppl[0], std::exp(2.0), 1e-12);
    EXPECT_NEAR(ppl[3], std::exp((2.0 + 3 + 4 + 4) / 4), 1e-12);
}

TEST(LossCurves, QuarterOctaveBinsCarryThePowerPaperLabel) {
    // Table 4 of the power-attention paper labels a bin 1878 = 2048 * 2^(-1/8).
    std::vector<double> mean(4096, 1.0);
    std::vector<int64_t> count(4096, 1);
    bool found = false;
    for (const auto& b : core::exponentialBins(mean, count, 4))
        if (std::abs(b.center - 2048 * std::exp2(-1.0 / 8)) < 1e-9) {
            found = true;
            EXPECT_EQ(b.begin, 1722);  // context lengths 1723 .. 2047
            EXPECT_EQ(b.end, 2047);
        }
    EXPECT_TRUE(found);
}

TEST(GateStats, RetentionTimescaleHorizonAndKinds) {
    // [H=1, N=100, C=3]: channel 0 halves every token, channel 1 is always open, channel 2
    // alternates open and 0.1.
    const int64_t n = 100;
    data::Array gates{{1, n, 3}, std::vector<float>(n * 3)};
    for (int64_t t = 0; t < n; ++t) {
        gates.values[t * 3 + 0] = std::log(0.5f);
        gates.values[t * 3 + 1] = 0.0f;
        gates.values[t * 3 + 2] = t % 2 ? std::log(0.1f) : 0.0f;
    }
    core::GateStatsOptions options;
    options.horizonThreshold = 0.3;
    const auto s = core::gateStats(4, gates, options);
    ASSERT_EQ(s.channels.size(), 3u);
    const auto& halving = s.channels[0];
    EXPECT_NEAR(halving.median, 0.5, 1e-6);
    EXPECT_NEAR(halving.timescale, 1.0 / std::log(2.0), 1e-5);
    EXPECT_DOUBLE_EQ(halving.horizonMedian, 2.0);  // 0.25 < 0.3 after two tokens
    EXPECT_EQ(halving.kind, "static");
    EXPECT_EQ(s.channels[1].kind, "always_on");
    EXPECT_TRUE(std::isinf(s.channels[1].timescale));
    EXPECT_TRUE(std::isnan(s.channels[1].horizonMedian));
    EXPECT_DOUBLE_EQ(s.channels[1].horizonReachedFraction, 0.0);
    EXPECT_EQ(s.channels[2].kind, "dynamic");
    EXPECT_NEAR(s.channels[2].meanRetention, 0.55, 1e-6);
    EXPECT_EQ(s.alwaysOn, 1);
    EXPECT_EQ(s.dynamic, 1);
    EXPECT_EQ(s.staticChannels, 1);
    EXPECT_EQ(s.layer, 4);
    // Timescales sorted: the halving channel's, the alternating one's, the open one's (inf); the
    // median is the middle one, not NaN from the infinite neighbour.
    const double middle = std::min(s.channels[2].timescale, halving.timescale) == halving.timescale
                              ? s.channels[2].timescale
                              : halving.timescale;
    EXPECT_DOUBLE_EQ(s.timescaleMedian, middle);
    EXPECT_TRUE(std::isinf(s.timescaleMax));
}

}  // namespace
}  // namespace gatescope
