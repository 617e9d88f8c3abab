// Checkpoint series (core/analysis/checkpoint_series.h) over hand-made traces of one text whose
// gates retain a constant share per token: each point's quantities follow from the definitions
// (timescale -1 / log r, horizon floor(log(threshold) / log r) capped by the prefix), and the
// points are ordered by the step read from the checkpoint folders' names or given.
#include <cmath>

#include <gtest/gtest.h>

#include "checkpoint_test_helpers.h"
#include "core/analysis/stats_report.h"
#include "synthetic_trace.h"

namespace gatescope {
namespace {

class Series : public ::testing::Test {
protected:
    /// A 40-token trace whose one gate channel retains `r` at every token.
    std::shared_ptr<const data::TraceReader> trace(const std::string& name, double r,
                                                   const std::string& checkpoint,
                                                   const std::string& text = std::string(40, 'q')) {
        test::SyntheticTrace t;
        t.text = text;
        t.keyWeights.assign(text.size(), 1.0);
        t.checkpointPath = checkpoint;
        for (std::size_t i = 0; i < text.size(); ++i) {
            t.loss.push_back(float(r) * (i + 1 < text.size() ? 1.0f : NAN));
            t.logGates.push_back(std::log(float(r)));
        }
        EXPECT_TRUE(test::writeSyntheticTrace(t, dir / name));
        return data::TraceReader::open(dir / name).value();
    }

    Result<core::StatsReport> run(const std::vector<int64_t>& steps = {}) {
        core::StatsOptions options;
        options.series = true;
        options.steps = steps;
        options.attention = true;
        options.gate.horizonThreshold = 0.5;
        options.attentionOptions.threads = 1;
        return core::statsReport(traces, options);
    }

    test::TempDir dir;
    std::vector<std::shared_ptr<const data::TraceReader>> traces;
};

TEST_F(Series, PointsOrderedByTheStepInTheCheckpointNames) {
    traces = {trace("late.h5", 0.95, "/runs/fox/checkpoint-2000"),
              trace("early.h5", 0.7, "/runs/fox/step_500/"),
              trace("mid.h5", 0.9, "/runs/fox/ckpt1000")};
    auto report = run();
    ASSERT_TRUE(report) << report.error().describe();
    ASSERT_TRUE(report->series);
    const auto& points = report->series->points;
    ASSERT_EQ(points.size(), 3u);
    const double retention[] = {0.7, 0.9, 0.95};
    const int64_t steps[] = {500, 1000, 2000};
    for (int p = 0; p < 3; ++p) {
        SCOPED_TRACE(p);
        EXPECT_EQ(points[p].step, steps[p]);
        EXPECT_EQ(points[p].stepSource, "name");
        const double logR = std::log(double(float(retention[p])));
        EXPECT_NEAR(points[p].overall.timescaleMedian, -1.0 / logR, 1e-3);
        // Horizon at query i: the largest d <= i with d log r >= log 0.5; the median over the
        // 40 queries, whose horizons are min(i, floor(log 0.5 / log r)).
        const double cap = std::floor(std::log(0.5) / logR);
        std::vector<double> h;
        for (int i = 0; i < 40; ++i)
            h.push_back(std::min<double>(i, cap));
        std::sort(h.begin(), h.end());
        EXPECT_DOUBLE_EQ(points[p].overall.gateHorizonMedian, 0.5 * (h[19] + h[20]));
        EXPECT_NEAR(points[p].meanLoss, retention[p], 1e-6);
        EXPECT_EQ(points[p].overall.alwaysOnFraction, 0.0);
        // Uniform attention over the prefix: row i puts 1 / (i + 1) on token 0.
        double sink = 0;
        for (int i = 1; i < 40; ++i)
            sink += 1.0 / (i + 1);
        EXPECT_NEAR(points[p].overall.sinkMass, sink / 39, 1e-6);
        ASSERT_EQ(points[p].layers.size(), 1u);
        EXPECT_EQ(points[p].layers[0].timescaleMedian, points[p].overall.timescaleMedian);
    }
    const auto json = report->toJson()["series"]["points"];
    ASSERT_EQ(json.size(), 3u);
    EXPECT_EQ(json[0]["step"], 500);
    EXPECT_EQ(json[2]["path"], (dir / "late.h5").string());
    ASSERT_TRUE(core::writeStatsCsv(*report, dir / "csv"));
    const auto csv = test::readFile(dir / "csv" / "series.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2);  // header, 3 x (all, layer 0)
}

TEST_F(Series, StepsGivenOrTheOrderWhenANameHoldsNone) {
    traces = {trace("a.h5", 0.9, "/runs/a/final"), trace("b.h5", 0.8, "/runs/b/step-7")};
    auto byOrder = run();
    ASSERT_TRUE(byOrder) << byOrder.error().describe();
    EXPECT_EQ(byOrder->series->points[0].stepSource, "order");
    EXPECT_EQ(byOrder->series->points[1].step, 1);
    auto given = run({300, 100});
    ASSERT_TRUE(given);
    EXPECT_EQ(given->series->points[0].step, 100);
    EXPECT_EQ(given->series->points[0].path, (dir / "b.h5").string());
    EXPECT_EQ(given->series->points[0].stepSource, "option");
    auto miscounted = run({1, 2, 3});
    ASSERT_FALSE(miscounted);
    EXPECT_EQ(miscounted.error().kind, ErrorKind::Usage);
}

TEST_F(Series, TracesOfAnotherTextAreRefused) {
    traces = {trace("a.h5", 0.9, "/c/1"), trace("b.h5", 0.9, "/c/2", std::string(40, 'r'))};
    auto report = run();
    ASSERT_FALSE(report);
    EXPECT_EQ(report.error().kind, ErrorKind::Usage);
    EXPECT_EQ(report.error().file, (dir / "b.h5").string());
    EXPECT_NE(report.error().message.find("one text"), std::string::npos);
}

}  // namespace
}  // namespace gatescope
