// core::statsReport as typed values, on two hand-made traces (documents of 4 and 3 tokens) whose
// loss curves, gate and attention statistics are worked out here from their definitions, and the
// JSON and CSV the CLI writes from them.
#include <cmath>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/analysis/stats_report.h"
#include "synthetic_trace.h"

namespace gatescope {
namespace {

// Channels retaining 0.5, 0.9, 0.995 and 1 at every token.
std::vector<float> gates(int64_t n) {
    std::vector<float> out;
    for (int64_t i = 0; i < n; ++i)
        out.insert(out.end(), {std::log(0.5f), std::log(0.9f), std::log(0.995f), 0.0f});
    return out;
}

class StatsResult : public ::testing::Test {
protected:
    void SetUp() override {
        test::SyntheticTrace first;
        first.loss = {1, 2, 3, NAN};
        first.keyWeights = {1, 3, 1, 2};
        first.channels = 4;
        first.logGates = gates(4);
        test::SyntheticTrace second;
        second.text = "abc";
        second.loss = {3, 4, NAN};
        second.keyWeights = {1, 1, 1};
        second.channels = 4;
        second.logGates = gates(3);
        for (const auto& [trace, name] :
             {std::pair{first, "first.h5"}, std::pair{second, "second.h5"}}) {
            ASSERT_TRUE(test::writeSyntheticTrace(trace, dir / name));
            traces.push_back(data::TraceReader::open(dir / name).value());
        }
        options.linearBinWidth = 2;
        options.binsPerOctave = 1;
        options.smoothingWindow = 3;
        options.attention = true;
        options.attentionOptions.threads = 1;
    }

    core::StatsReport report() const {
        auto r = core::statsReport(traces, options);
        EXPECT_TRUE(r) << r.error().describe();
        return r ? *r : core::StatsReport{};
    }

    test::TempDir dir;
    std::vector<std::shared_ptr<const data::TraceReader>> traces;
    core::StatsOptions options;
};

TEST_F(StatsResult, LossCurvesPoolTheDocuments) {
    const auto r = report();
    ASSERT_TRUE(r.loss);
    const auto& loss = *r.loss;
    EXPECT_EQ(loss.documents, 2);
    EXPECT_DOUBLE_EQ(loss.meanLoss, (1 + 2 + 3 + 3 + 4) / 5.0);
    ASSERT_EQ(loss.meanByPosition.size(), 4u);
    EXPECT_DOUBLE_EQ(loss.meanByPosition[0], 2);
    EXPECT_DOUBLE_EQ(loss.meanByPosition[1], 3);
    EXPECT_DOUBLE_EQ(loss.meanByPosition[2], 3);
    EXPECT_TRUE(std::isnan(loss.meanByPosition[3]));
    EXPECT_EQ(loss.countByPosition, (std::vector<int64_t>{2, 2, 1, 0}));
    // Window 3, truncated at the edges, NaN left out.
    EXPECT_EQ(loss.smoothingWindow, 3);
    EXPECT_DOUBLE_EQ(loss.smoothed[0], 2.5);
    EXPECT_DOUBLE_EQ(loss.smoothed[1], 8.0 / 3);
    EXPECT_DOUBLE_EQ(loss.smoothed[3], 3);
    EXPECT_NEAR(loss.runningPerplexity[1], std::exp(2.5), 1e-12);
    // Linear bins of 2: {0, 1} pools 4 targets, {2, 3} one.
    ASSERT_EQ(loss.linearBins.size(), 2u);
    EXPECT_DOUBLE_EQ(loss.linearBins[0].meanLoss, 2.5);
    EXPECT_EQ(loss.linearBins[0].count, 4);
    EXPECT_EQ(loss.linearBins[1].count, 1);
    // Octaves of the context length: positions {0}, {1, 2}, {3}; the best is the first.
    EXPECT_EQ(loss.binsPerOctave, 1);
    ASSERT_EQ(loss.exponentialBins.size(), 3u);
    EXPECT_DOUBLE_EQ(loss.exponentialBins[1].meanLoss, 3);
    EXPECT_TRUE(std::isnan(loss.exponentialBins[2].meanLoss));
    EXPECT_DOUBLE_EQ(loss.bestContext.loss, 2);
    EXPECT_NEAR(loss.bestContext.contextLength, std::sqrt(2.0), 1e-12);
}

TEST_F(StatsResult, GateStatisticsPerTraceAndLayer) {
    const auto r = report();
    ASSERT_EQ(r.traces.size(), 2u);
    EXPECT_EQ(r.traces[1].nTokens, 3);
    EXPECT_EQ(r.traces[0].modelType, "synthetic");
    EXPECT_EQ(r.traces[0].path, (dir / "first.h5").string());
    ASSERT_EQ(r.traces[0].gates.size(), 1u);
    const auto& g = r.traces[0].gates[0];
    ASSERT_EQ(g.channels.size(), 4u);
    EXPECT_NEAR(g.channels[1].meanRetention, 0.9, 1e-6);
    // Timescales -1 / log(retention): 1 / log 2, -1 / log 0.9, -1 / log 0.995, and infinite for
    // the open gate; the median is the mean of the middle two.
    EXPECT_NEAR(g.timescaleMin, 1 / std::log(2.0), 1e-5);
    EXPECT_NEAR(g.timescaleMedian, (-1 / std::log(0.9) - 1 / std::log(0.995)) / 2, 1e-2);
    EXPECT_TRUE(std::isinf(g.timescaleMax));
    EXPECT_EQ(g.alwaysOn, 2);  // retention at least 0.99 throughout
    EXPECT_EQ(g.dynamic, 0);
    EXPECT_EQ(g.staticChannels, 2);
}

TEST_F(StatsResult, AttentionStatisticsOfTheHead) {
    const auto r = report();
    ASSERT_EQ(r.traces[0].attention.size(), 1u);
    EXPECT_EQ(r.traces[0].attention[0].layer, 0);
    ASSERT_EQ(r.traces[0].attention[0].heads.size(), 1u);
    const auto& h = r.traces[0].attention[0].heads[0];
    // Rows of weights 1, 3, 1, 2: [1], [1/4 3/4], [1/5 3/5 1/5], [1/7 3/7 1/7 2/7].
    double entropy = 0, distance = 0, sink = 0;
    std::vector<double> mass(3, 0.0);  // distances 0, 1, 2-3
    for (int64_t i = 0; i < 4; ++i) {
        const auto row = test::attentionRow({1, 3, 1, 2}, i);
        for (int64_t j = 0; j <= i; ++j) {
            entropy -= row[j] * std::log(row[j]);
            distance += row[j] * double(i - j);
            mass[i - j == 0 ? 0 : i - j == 1 ? 1 : 2] += row[j];
        }
        if (i > 0) sink += row[0];
    }
    EXPECT_NEAR(h.meanEntropy, entropy / 4, 1e-6);
    EXPECT_NEAR(h.meanDistance, distance / 4, 1e-6);
    EXPECT_NEAR(h.sinkMass, sink / 3, 1e-6);
    EXPECT_NEAR(h.meanArgmaxDistance, (0 + 0 + 1 + 2) / 4.0, 1e-12);
    ASSERT_GE(h.massByDistance.size(), 3u);
    for (int b = 0; b < 3; ++b)
        EXPECT_NEAR(h.massByDistance[b], mass[b] / 4, 1e-6) << b;
    EXPECT_EQ(h.negligibleBlockFraction, -1);  // no decay map to prune by
}

TEST_F(StatsResult, JsonKeepsTheCliSchema) {
    options.gates = false;
    const auto json = nlohmann::json::parse(report().toJson().dump(1));
    EXPECT_EQ(json.size(), 2u);
    const auto& loss = json["loss"];
    for (const char* key : {"documents", "mean_loss", "by_position", "linear_bins",
                            "exponential_bins", "bins_per_octave", "best_context"})
        EXPECT_TRUE(loss.contains(key)) << key;
    EXPECT_TRUE(loss["by_position"]["mean"][3].is_null());  // NaN
    EXPECT_EQ(loss["by_position"]["count"], nlohmann::json({2, 2, 1, 0}));
    EXPECT_EQ(loss["by_position"]["smoothing_window"], 3);
    EXPECT_TRUE(loss["exponential_bins"][2]["mean_loss"].is_null());
    EXPECT_EQ(loss["best_context"]["loss"], 2.0);
    const auto& trace = json["traces"][1];
    EXPECT_EQ(trace["n_tokens"], 3);
    EXPECT_EQ(trace["model_type"], "synthetic");
    EXPECT_FALSE(trace.contains("gates"));  // not asked for: left out, not empty
    EXPECT_EQ(trace["attention"][0]["heads"][0].size(), 7u);

    options.gates = true;
    options.attention = false;
    options.loss = false;
    const auto other = nlohmann::json::parse(report().toJson().dump(1));
    EXPECT_FALSE(other.contains("loss"));
    EXPECT_FALSE(other["traces"][0].contains("attention"));
    const auto& channel = other["traces"][0]["gates"][0]["channels"][3];
    EXPECT_EQ(channel["kind"], "always_on");
    EXPECT_TRUE(channel["timescale"].is_null());  // infinite
}

TEST_F(StatsResult, CsvTablesHoldTheReport) {
    ASSERT_TRUE(core::writeStatsCsv(report(), dir / "csv"));
    const auto byPosition = test::readFile(dir / "csv" / "loss_by_position.csv");
    EXPECT_EQ(byPosition.substr(0, byPosition.find('\n')),
              "position,mean_loss,count,smoothed,running_perplexity");
    EXPECT_NE(byPosition.find("\n0,2,2,2.5,"), std::string::npos) << byPosition;
    EXPECT_NE(byPosition.find("\n3,nan,0,3,"), std::string::npos) << byPosition;
    const auto gatesCsv = test::readFile(dir / "csv" / "gates.csv");
    EXPECT_EQ(std::count(gatesCsv.begin(), gatesCsv.end(), '\n'), 1 + 2 * 4);  // 2 traces x 4
    EXPECT_NE(gatesCsv.find(",inf,"), std::string::npos) << gatesCsv;          // the open gate
    EXPECT_NE(gatesCsv.find(",always_on\n"), std::string::npos) << gatesCsv;
    const auto attention = test::readFile(dir / "csv" / "attention.csv");
    EXPECT_EQ(std::count(attention.begin(), attention.end(), '\n'), 1 + 2);  // 2 traces x 1 head
    EXPECT_NE(attention.find((dir / "second.h5").string() + ",0,0,"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(dir / "csv" / "loss_exp_bins.csv"));
}

}  // namespace
}  // namespace gatescope
