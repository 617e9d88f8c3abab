// core::compareTraces as typed values, on hand-made four-token traces whose loss deltas, gate
// differences and attention divergences are worked out here from their definitions, and the
// JSON the CLI writes from them.
#include <cmath>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/analysis/compare.h"
#include "synthetic_trace.h"

namespace gatescope {
namespace {

// A: uniform attention; gates retain 0.5 (channel 0) and 1 (channel 1).
test::SyntheticTrace traceA() {
    test::SyntheticTrace t;
    t.loss = {1, 2, 3, NAN};
    t.channels = 2;
    for (int i = 0; i < 4; ++i)
        t.logGates.insert(t.logGates.end(), {std::log(0.5f), 0.0f});
    return t;
}

// B: attention weights 1, 3, 1, 2; gates retain 0.25 and 0.5.
test::SyntheticTrace traceB() {
    test::SyntheticTrace t;
    t.loss = {2, 1, 1, NAN};
    t.keyWeights = {1, 3, 1, 2};
    t.channels = 2;
    for (int i = 0; i < 4; ++i)
        t.logGates.insert(t.logGates.end(), {std::log(0.25f), std::log(0.5f)});
    return t;
}

class CompareResult : public ::testing::Test {
protected:
    std::shared_ptr<const data::TraceReader> open(const test::SyntheticTrace& t) {
        const auto path = dir / (std::to_string(m_written++) + ".h5");
        const auto written = test::writeSyntheticTrace(t, path);
        EXPECT_TRUE(written) << written.error().describe();
        return data::TraceReader::open(path).value();
    }

    core::TraceComparison compare(const test::SyntheticTrace& a, const test::SyntheticTrace& b) {
        core::CompareOptions options;
        options.binWidth = 2;
        options.binsPerOctave = 1;
        options.threads = 1;
        auto r = core::compareTraces(*open(a), *open(b), options);
        EXPECT_TRUE(r) << r.error().describe();
        return r ? *r : core::TraceComparison{};
    }

    test::TempDir dir;

private:
    int m_written = 0;
};

TEST_F(CompareResult, LossDeltaAndItsBinsOfIdenticalTokens) {
    const auto c = compare(traceA(), traceB());
    EXPECT_TRUE(c.alignment.identical);
    EXPECT_EQ(c.alignment.pairs.size(), 4u);
    ASSERT_TRUE(c.loss);
    const auto& loss = *c.loss;
    // A - B per position: -1, 1, 2; the last token has no target.
    ASSERT_EQ(loss.delta.size(), 4u);
    EXPECT_DOUBLE_EQ(loss.delta[0], -1);
    EXPECT_DOUBLE_EQ(loss.delta[1], 1);
    EXPECT_DOUBLE_EQ(loss.delta[2], 2);
    EXPECT_TRUE(std::isnan(loss.delta[3]));
    EXPECT_EQ(loss.positions, 3);
    EXPECT_DOUBLE_EQ(loss.totalDelta, 2);
    EXPECT_DOUBLE_EQ(loss.meanDelta, 2.0 / 3);
    EXPECT_DOUBLE_EQ(loss.aBetterFraction, 1.0 / 3);

    // Width 2: {0, 1} -> mean 0, share 0 / 2; {2, 3} -> mean 2, share 2 / 2.
    ASSERT_EQ(loss.linearBins.size(), 2u);
    EXPECT_EQ(loss.linearBins[0].count, 2);
    EXPECT_DOUBLE_EQ(loss.linearBins[0].meanDelta.value(), 0);
    EXPECT_DOUBLE_EQ(loss.linearBins[0].shareOfGap.value(), 0);
    EXPECT_DOUBLE_EQ(loss.linearBins[1].center, 2.5);
    EXPECT_DOUBLE_EQ(loss.linearBins[1].meanDelta.value(), 2);
    EXPECT_DOUBLE_EQ(loss.linearBins[1].shareOfGap.value(), 1);

    // One bin per octave of context length: positions {0}, {1, 2}, {3} (no target there).
    ASSERT_EQ(loss.exponentialBins.size(), 3u);
    const auto& e = loss.exponentialBins;
    EXPECT_DOUBLE_EQ(e[0].meanDelta.value(), -1);
    EXPECT_DOUBLE_EQ(e[0].shareOfGap.value(), -0.5);
    EXPECT_EQ(e[1].begin, 1);
    EXPECT_EQ(e[1].end, 3);
    EXPECT_DOUBLE_EQ(e[1].meanDelta.value(), 1.5);
    EXPECT_DOUBLE_EQ(e[1].shareOfGap.value(), 1.5);
    EXPECT_NEAR(e[1].center, 2 * std::sqrt(2.0), 1e-12);
    EXPECT_EQ(e[2].count, 0);
    EXPECT_FALSE(e[2].meanDelta);  // empty bin: no mean
    EXPECT_DOUBLE_EQ(e[2].shareOfGap.value(), 0);
}

TEST_F(CompareResult, GateDifferencesAndAttentionDivergencesOfTheHead) {
    const auto c = compare(traceA(), traceB());
    ASSERT_EQ(c.layers.size(), 1u);
    ASSERT_EQ(c.layers[0].heads.size(), 1u);
    const auto& head = c.layers[0].heads[0];
    EXPECT_EQ(head.head, 0);
    ASSERT_TRUE(head.gates);
    // |log 0.5 - log 0.25| and |log 1 - log 0.5| are both log 2; retention 0.25 and 0.5.
    EXPECT_NEAR(head.gates->absDiff, std::log(2.0), 1e-6);
    EXPECT_NEAR(head.gates->retentionDiff, 0.375, 1e-6);

    ASSERT_TRUE(head.attention);
    double klAB = 0, klBA = 0, js = 0, tv = 0;
    for (int64_t i = 0; i < 4; ++i) {
        const auto p = test::attentionRow(traceA().keyWeights, i);
        const auto q = test::attentionRow(traceB().keyWeights, i);
        for (int64_t j = 0; j <= i; ++j) {
            const double m = 0.5 * (p[j] + q[j]);
            klAB += p[j] * std::log(p[j] / q[j]);
            klBA += q[j] * std::log(q[j] / p[j]);
            js += 0.5 * p[j] * std::log(p[j] / m) + 0.5 * q[j] * std::log(q[j] / m);
            tv += 0.5 * std::abs(p[j] - q[j]);
        }
    }
    EXPECT_GT(js, 0.01);
    EXPECT_NEAR(head.attention->klAB, klAB / 4, 1e-6);
    EXPECT_NEAR(head.attention->klBA, klBA / 4, 1e-6);
    EXPECT_NEAR(head.attention->js, js / 4, 1e-6);
    EXPECT_NEAR(head.attention->totalVariation, tv / 4, 1e-6);
}

TEST_F(CompareResult, TracesOfDifferentTextsCompareGatesButNeitherLossNorAttention) {
    auto b = traceB();
    b.text = "wxyz";
    const auto c = compare(traceA(), b);
    EXPECT_FALSE(c.alignment.identical);
    EXPECT_TRUE(c.alignment.pairs.empty());
    ASSERT_TRUE(c.loss);
    EXPECT_EQ(c.loss->positions, 0);
    EXPECT_TRUE(std::isnan(c.loss->meanDelta));
    EXPECT_TRUE(std::isnan(c.loss->aBetterFraction));
    for (const auto& bin : c.loss->exponentialBins) {
        EXPECT_FALSE(bin.meanDelta);
        EXPECT_FALSE(bin.shareOfGap);  // no gap to share
    }
    const auto& head = c.layers.at(0).heads.at(0);
    EXPECT_TRUE(head.gates);
    EXPECT_FALSE(head.attention);
}

TEST_F(CompareResult, AnUngatedTraceHasNoGateDifferences) {
    auto b = traceB();
    b.logGates.clear();
    const auto c = compare(traceA(), b);
    const auto& head = c.layers.at(0).heads.at(0);
    EXPECT_FALSE(head.gates);
    EXPECT_TRUE(head.attention);
}

TEST_F(CompareResult, HeadsAndLayersOutsideBothTracesAreUsageErrors) {
    // One layer of one head: head 1 and layer 3 exist in neither trace. Before, a head past the
    // layer's count read past the gate array and an unknown layer was silently skipped.
    const auto a = open(traceA()), b = open(traceB());
    core::CompareOptions options;
    options.threads = 1;
    options.heads = {1};
    auto r = core::compareTraces(*a, *b, options);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Usage);
    EXPECT_EQ(r.error().object, "--heads");
    EXPECT_NE(r.error().message.find("head 1"), std::string::npos) << r.error().describe();
    options.heads = {-1};
    EXPECT_FALSE(core::compareTraces(*a, *b, options));
    options.heads = {0};
    EXPECT_TRUE(core::compareTraces(*a, *b, options));
    options.layers = {3};
    r = core::compareTraces(*a, *b, options);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().object, "--layers");
}

TEST_F(CompareResult, JsonKeepsTheCliSchema) {
    const auto json = nlohmann::json::parse(compare(traceA(), traceB()).toJson().dump(1));
    for (const char* key : {"a", "b", "alignment", "loss", "layers"})
        EXPECT_TRUE(json.contains(key)) << key;
    EXPECT_EQ(json["alignment"]["aligned_positions"], 4);
    EXPECT_TRUE(json["alignment"]["identical"].get<bool>());
    const auto& loss = json["loss"];
    EXPECT_EQ(loss.size(), 7u);
    EXPECT_TRUE(loss["delta"][3].is_null());  // NaN
    EXPECT_DOUBLE_EQ(loss["total_delta"].get<double>(), 2);
    EXPECT_EQ(loss["positions"], 3);
    const auto& empty = loss["exponential_bins"][2];
    EXPECT_EQ(empty.size(), 6u);
    EXPECT_TRUE(empty["mean_delta"].is_null());
    EXPECT_EQ(empty["share_of_gap"], 0.0);
    const auto& head = json["layers"][0]["heads"][0];
    EXPECT_EQ(json["layers"][0]["layer"], 0);
    for (const char* key :
         {"head", "gate_abs_diff", "retention_diff", "kl_ab", "kl_ba", "js", "total_variation"})
        EXPECT_TRUE(head.contains(key)) << key;

    // Without attention a head holds its gate differences only.
    auto b = traceB();
    b.text = "wxyz";
    const auto other = nlohmann::json::parse(compare(traceA(), b).toJson().dump(1));
    EXPECT_EQ(other["layers"][0]["heads"][0].size(), 3u);
    EXPECT_TRUE(other["loss"]["mean_delta"].is_null());
    EXPECT_TRUE(other["loss"]["linear_bins"][0]["share_of_gap"].is_null());
}

}  // namespace
}  // namespace gatescope
