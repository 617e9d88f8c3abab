// The real viewer under Xvfb + Mesa: `gatescope open SAMPLE --script` opens the sample trace,
// shows the whole map, zooms to single cells (exact tiles), switches head, hovers a cell and saves
// screenshots to <build>/tests/gui-screenshots. The hovered value is checked against the formula
// evaluated here from the stored factors; the screenshots must differ where the view changed.
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include <QImage>
#include <nlohmann/json.hpp>

#include "core/analysis/compare.h"
#include "core/sample/random_fox_checkpoint.h"
#include "support/sample_trace.h"
#include "widgets/fox_reference.h"
#include "widgets/gui_test_support.h"
#include "widgets/view/compare_tiles.h"
#include "widgets/view/needle_grid.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

/// The sample trace, opened (an error when it could not be made).
Result<std::shared_ptr<const widgets::TraceDocument>> openSample() {
    const auto trace = sample::sampleTrace();
    if (trace.empty()) return Error{ErrorKind::Io, "could not make the sample trace", {}, {}};
    return widgets::TraceDocument::open(trace);
}

}  // namespace

TEST(GuiSmoke, OpenZoomToCellsSwitchHeadHoverUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty()) << "could not make the sample trace";
    auto doc = widgets::TraceDocument::open(trace);
    ASSERT_TRUE(doc);
    const int64_t n = (*doc)->n();
    const int64_t q = n - 40, k = n - 45;  // a cell near the end: past the finest pyramid level
    const int64_t q2 = n / 2 + 7, k2 = n / 2 - 30;  // hovered on the whole map: pooled on screen

    const std::filesystem::path shots =
        std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" / "gui-screenshots";
    std::filesystem::create_directories(shots);
    for (const char* f :
         {"1-overview.png", "2-cells.png", "3-head3-hover.png", "4-decay-magma-log.png"})
        std::filesystem::remove(shots / f);
    const auto script = shots / "smoke.script";
    {
        std::ofstream s(script);
        s << "wait\nidle-frames 700\nscreenshot " << (shots / "1-overview.png").string() << "\n"
          << "zoom-cells " << q << " " << k << " 28\nwait\nscreenshot "
          << (shots / "2-cells.png").string() << "\n"
          << "head 3\nwait\nhover " << q << " " << k << "\nscreenshot "
          << (shots / "3-head3-hover.png").string() << "\n"
          << "map decay\ncolormap magma\nscale log\nfit\ncursor " << n / 2 << "\nfit\nwait\nhover "
          << q2 << " " << k2 << "\nscreenshot " << (shots / "4-decay-magma-log.png").string()
          << "\nquit 0\n";
    }
    int status = 0;
    const std::string out = runViewerScript(trace, script, shots, status);
    ASSERT_EQ(status, 0) << out;

    // Repaint on demand: with no input and every tile drawn, nothing repaints.
    std::smatch idle;
    ASSERT_TRUE(std::regex_search(out, idle, std::regex(R"(idle-frames (\d+) in)"))) << out;
    EXPECT_EQ(idle[1], "0") << "frames painted while idle: a timer is repainting";

    // The hovered value is the exact attention weight of head 3 at (q, k).
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        out, m, std::regex(R"(hover query=(\d+) key=(\d+) value=(\S+) exact=(\d))")))
        << out;
    EXPECT_EQ(std::stoll(m[1]), q);
    EXPECT_EQ(std::stoll(m[2]), k);
    EXPECT_EQ(m[4], "1") << "zoomed to cells, the hover must read an exact tile";
    const data::TraceReader& r = *(*doc)->reader;
    const double expected = foxAttention(r, 0, 3, q, k);
    ASSERT_FALSE(std::isnan(expected));
    EXPECT_NEAR(std::stod(m[3]), expected, 1e-6 + 1e-4 * expected);

    // On the whole map the screen shows pooled blocks; the hover still reports the exact decay.
    const std::string rest = m.suffix();
    std::smatch m2;
    ASSERT_TRUE(std::regex_search(
        rest, m2, std::regex(R"(hover query=(\d+) key=(\d+) value=(\S+) exact=(\d) level=(\d+))")))
        << out;
    // ImGui floors the mouse to whole pixels (about 3 tokens here): the cell is the pixel's.
    const int64_t hq = std::stoll(m2[1]), hk = std::stoll(m2[2]);
    EXPECT_LE(std::abs(hq - q2), 4);
    EXPECT_LE(std::abs(hk - k2), 4);
    EXPECT_EQ(m2[4], "1");
    auto c2q = r.factor(0, "log_decay_cumsum", 3, hq, hq + 1);
    auto c2k = r.factor(0, "log_decay_cumsum", 3, hk, hk + 1);
    ASSERT_TRUE(c2q && c2k);
    EXPECT_NEAR(std::stod(m2[3]), std::exp(double(c2q->values[0]) - c2k->values[0]), 1e-5);

    QImage overview(QString::fromStdString((shots / "1-overview.png").string()));
    QImage cells(QString::fromStdString((shots / "2-cells.png").string()));
    QImage head3(QString::fromStdString((shots / "3-head3-hover.png").string()));
    QImage decay(QString::fromStdString((shots / "4-decay-magma-log.png").string()));
    ASSERT_FALSE(overview.isNull() || cells.isNull() || head3.isNull() || decay.isNull());
    EXPECT_GE(overview.width(), 800);
    const QRect middle(overview.width() / 4, overview.height() / 4, overview.width() / 2,
                       overview.height() / 2);
    EXPECT_GT(distinctColours(overview, middle), 50u) << "the map did not render";
    EXPECT_GT(distinctColours(cells, middle), 20u);
    EXPECT_GT(meanAbsDiff(overview, cells), 2.0) << "zooming changed nothing on screen";
    EXPECT_GT(meanAbsDiff(cells, head3), 0.5) << "switching head changed nothing on screen";
    EXPECT_GT(meanAbsDiff(overview, decay), 2.0) << "decay/magma/log looks like attention/viridis";
}

TEST(GuiSmoke, PerChannelRetentionOfGsaUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::gsaTrace();
    if (trace.empty()) GTEST_SKIP() << "no GSA fixture under " << GATESCOPE_FIXTURES_DIR;
    const std::filesystem::path shots =
        std::filesystem::path(GATESCOPE_BINARY_DIR) / "tests" / "gui-screenshots";
    std::filesystem::create_directories(shots);
    const auto png = shots / "5-gsa-retention.png";
    std::filesystem::remove(png);
    const auto script = shots / "gsa.script";
    std::ofstream(script) << "wait\ncursor 30\nfit\nwait\nhover 60 40\nscreenshot " << png.string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, shots, status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("hover query=60 key=40"), std::string::npos) << out;
    QImage img(QString::fromStdString(png.string()));
    ASSERT_FALSE(img.isNull());
    // The retention dock (bottom quarter of the window) shows the channels x positions heatmap.
    const QRect retention(0, img.height() * 3 / 4, img.width(), img.height() / 8);
    EXPECT_GT(distinctColours(img, retention), 30u) << "no channels x positions heatmap";
}

// The Statistics dock drawn: raised over Retention by `dock statistics`, the gate table of layer 0
// (one row per head and gate channel), then the attention table (one row per head).
TEST(GuiSmoke, StatisticsDockDrawsGateAndAttentionTablesUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    auto doc = openSample();
    ASSERT_TRUE(doc);
    const auto trace = sample::sampleTrace();
    const auto& layer0 = *(*doc)->summary().layer(0);
    const auto shots = screenshotDir();
    const auto before = shots / "6-retention-dock.png", gates = shots / "7-statistics-gates.png",
               attention = shots / "8-statistics-attention.png";
    for (const auto& f : {before, gates, attention})
        std::filesystem::remove(f);
    const auto script = shots / "statistics.script";
    std::ofstream(script) << "wait\nscreenshot " << before.string() << "\ndock statistics\n"
                          << "screenshot " << gates.string() << "\nstats-attention\n"
                          << "screenshot " << attention.string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, shots, status);
    ASSERT_EQ(status, 0) << out;

    const auto dock = scriptNumbers(out, "dock statistics", {"x", "y", "w", "h"});
    ASSERT_EQ(dock.size(), 4u) << out;
    const auto rows = scriptNumbers(out, "stats", {"gate-rows", "attention-rows"});
    ASSERT_EQ(rows.size(), 2u) << out;
    auto gateArray = (*doc)->reader->gates(0);
    ASSERT_TRUE(gateArray);
    EXPECT_EQ(rows[0], double(layer0.header.nHeads * gateArray->shape[2]))
        << "one gate row per head and channel";
    EXPECT_EQ(rows[1], double(layer0.header.nHeads)) << "one attention row per head";

    const QImage a = loadPng(before), b = loadPng(gates), c = loadPng(attention);
    ASSERT_FALSE(a.isNull() || b.isNull() || c.isNull());
    ASSERT_EQ(a.size(), b.size());
    const QRect dockRect{int(dock[0]), int(dock[1]), int(dock[2]), int(dock[3])};
    EXPECT_GE(dockRect.width(), 600);
    EXPECT_GE(dockRect.height(), 120);
    EXPECT_GT(meanAbsDiffIn(a, b, dockRect), 3.0)
        << "the Statistics dock did not replace Retention";
    EXPECT_GT(meanAbsDiffIn(b, c, dockRect), 0.5) << "the Attention tab looks like the Gates tab";
    EXPECT_GT(distinctColours(b, dockRect), 8u) << "no table drawn";
    // The rest of the window (the map above the dock) did not change.
    const QRect above(0, 60, a.width(), dockRect.top() - 80);
    EXPECT_LT(meanAbsDiffIn(a, b, above), 0.5);
}

// A needle grid from the real `gatescope niah` on a random checkpoint: opened by
// `gatescope open grid.json`, drawn in the Needle Grid dock, and a click on a cell opens that
// cell's trace with the cursor on the needle and the canvas on the answer rows x needle columns.
TEST(GuiSmoke, NeedleGridOpensACellTraceAtTheNeedleUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto shots = screenshotDir();
    const auto dir = freshDir(shots / "niah");
    {
        std::ofstream hay(dir / "hay.txt");
        for (int i = 0; i < 20; ++i)
            hay << "The grass is green. The sky is blue. ";
    }
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(dir / "model", spec));
    int status = 0;
    const std::string make = runCapture(
        fmt::format("cd '{}' && '{}' niah --model model --haystack hay.txt --lengths 300,420 "
                    "--depths 0,50,100 --out grid --threads 1 2>&1",
                    dir.string(), GATESCOPE_CLI),
        status);
    ASSERT_EQ(status, 0) << make;
    const auto gridJson = dir / "grid" / "grid.json";
    std::ifstream in(gridJson);
    const auto grid = nlohmann::json::parse(in);
    nlohmann::json cell;
    for (const auto& c : grid["cells"])
        if (c["length"] == 420 && c["depth"] == 50) cell = c;
    ASSERT_FALSE(cell.is_null());

    const auto gridPng = shots / "9-needle-grid.png", cellPng = shots / "10-needle-cell.png";
    std::filesystem::remove(gridPng);
    std::filesystem::remove(cellPng);
    const auto script = shots / "grid.script";
    std::ofstream(script) << "wait\nscreenshot " << gridPng.string()
                          << "\ngrid-click 420 50\nscreenshot " << cellPng.string() << "\nquit 0\n";
    const std::string out = runViewerScript(gridJson, script, shots, status);
    ASSERT_EQ(status, 0) << out;

    // The cell's own trace opened, with the cursor on the needle's first token.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(script: opened (\S+) tokens=)"))) << out;
    EXPECT_EQ(std::filesystem::weakly_canonical(m[1].str()),
              std::filesystem::weakly_canonical(dir / "grid" / cell["trace"].get<std::string>()));
    const auto opened = scriptNumbers(out, "opened", {"tokens", "cursor"});
    ASSERT_EQ(opened.size(), 2u) << out;
    EXPECT_EQ(opened[0], 420);
    const int64_t needleBegin = cell["needle"][0], needleEnd = cell["needle"][1];
    EXPECT_EQ(opened[1], double(needleBegin));
    // The canvas shows the needle's columns and the answer's rows.
    std::smatch v;
    ASSERT_TRUE(std::regex_search(
        out, v, std::regex(R"(keys=([0-9.]+):([0-9.]+) queries=([0-9.]+):([0-9.]+))")))
        << out;
    const int64_t answerStart = 420 - cell["answer_tokens"].get<int64_t>();
    EXPECT_LE(std::stod(v[1]), double(needleBegin));
    EXPECT_GE(std::stod(v[2]), double(needleEnd));
    EXPECT_LE(std::stod(v[3]), double(answerStart));
    EXPECT_GE(std::stod(v[4]), 419.0);
    EXPECT_LT(std::stod(v[2]) - std::stod(v[1]), 420.0) << "not zoomed: the whole map is shown";

    // The clicked cell is drawn in the colour of its matched fraction.
    const auto at = scriptNumbers(out, "grid-click at", {"x", "y"});
    ASSERT_EQ(at.size(), 2u) << out;
    const QImage g = loadPng(gridPng), c = loadPng(cellPng);
    ASSERT_FALSE(g.isNull() || c.isNull());
    const double fraction =
        cell["answer_tokens"].get<int>() > 0
            ? cell["matched_prefix"].get<double>() / cell["answer_tokens"].get<double>()
            : 0.0;
    const uint32_t want = widgets::needleColor(fraction);
    const QRgb got = g.pixel(int(at[0]), int(at[1]) + 6);  // below the cell's text
    EXPECT_NEAR(qRed(got), int(want & 0xff), 3);
    EXPECT_NEAR(qGreen(got), int((want >> 8) & 0xff), 3);
    EXPECT_NEAR(qBlue(got), int((want >> 16) & 0xff), 3);
    // Then the map of the cell's trace fills the centre.
    const QRect centre(c.width() * 2 / 5, c.height() / 4, c.width() / 4, c.height() / 3);
    // (A random model's answer rows hardly attend to the needle: the colours are near-uniform,
    // but they are the map's, not the empty canvas's background.)
    const QRgb mid = c.pixel(centre.center());
    EXPECT_FALSE(qRed(mid) == 18 && qGreen(mid) == 18 && qBlue(mid) == 22) << "no map drawn";
    EXPECT_GT(meanAbsDiffIn(g, c, centre), 5.0);
}

namespace {

/// The numbers of the output line "script: NAME query=Q key=K value=V ..." (NAME as printed).
struct Hovered {
    int64_t query = -1, key = -1;
    double value = NAN;
};
std::vector<Hovered> hoversNamed(const std::string& out, const std::string& name) {
    std::vector<Hovered> all;
    const std::regex re("script: " + name + R"( query=(\d+) key=(\d+) value=(\S+) exact=1)");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator();
         ++it)
        all.push_back(Hovered{std::stoll((*it)[1]), std::stoll((*it)[2]), std::stod((*it)[3])});
    return all;
}

}  // namespace

// Compare mode on two traces of the same text (random FoX checkpoints of two seeds, traced by
// the real CLI): `gatescope open A B` shows A | B | A - B locked; the difference view's values
// are A - B and log pA - log pB of the exact weights; the KL/JS track of every row averages to
// what `gatescope compare` (core::compareTraces) reports for the head; layer, head and zoom
// follow A on B and the difference; nothing repaints while idle.
TEST(GuiSmoke, CompareModeLocksTwoTracesAndShowsTheirDifferenceUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto [pa, pb] = sample::compareTraces(200);
    ASSERT_FALSE(pa.empty()) << "could not trace the two checkpoints";
    auto da = widgets::TraceDocument::open(pa), db = widgets::TraceDocument::open(pb);
    ASSERT_TRUE(da && db);
    const data::TraceReader &ra = *(*da)->reader, &rb = *(*db)->reader;
    const int64_t n = (*da)->n();
    const auto shots = screenshotDir();
    const auto diffPng = shots / "11-compare-difference.png",
               logPng = shots / "12-compare-log-ratio.png",
               zoomPng = shots / "13-compare-zoomed-l1h1.png";
    for (const auto& f : {diffPng, logPng, zoomPng})
        std::filesystem::remove(f);
    const auto script = shots / "compare.script";
    // Both mode screenshots with the pointer on the difference canvas: A and B show their
    // read-out of the pointed cell in both, so A's canvas must not change with the mode.
    std::ofstream(script) << "wait\ncompare-summary\nidle-frames 500\nhover-diff 150 148\n"
                          << "screenshot " << diffPng.string()
                          << "\nrow-divergence\ndiff-mode log-ratio\n"
                          << "hover-diff 150 148\nscreenshot " << logPng.string()
                          << "\nlayer 1\nhead 1\nzoom-cells 120 100 22\nwait\nhover-b 120 100\n"
                          << "diff-mode diff\nhover-diff 120 100\nscreenshot " << zoomPng.string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript({pa, pb}, script, shots, status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("idle-frames 0 in"), std::string::npos) << "repainting while idle: " << out;

    // Difference values: the exact weights of A and B at the hovered cell (layer 0, head 0).
    const auto diffs = hoversNamed(out, "hover-diff");
    ASSERT_EQ(diffs.size(), 3u) << out;
    auto at = [](const data::TraceReader& r, int l, int h, const Hovered& c) {
        return foxAttention(r, l, h, c.query, c.key);
    };
    const double a0 = at(ra, 0, 0, diffs[0]), b0 = at(rb, 0, 0, diffs[0]);
    EXPECT_NEAR(diffs[0].value, a0 - b0, 1e-6 + 1e-4 * std::abs(a0 - b0));
    const double a1 = at(ra, 0, 0, diffs[1]), b1 = at(rb, 0, 0, diffs[1]);
    const double logRatio = std::log(std::max(a1, widgets::kLogRatioFloor)) -
                            std::log(std::max(b1, widgets::kLogRatioFloor));
    EXPECT_NEAR(diffs[1].value, logRatio, 1e-3) << "log-ratio mode";
    // After `layer 1`, `head 1` on A: B and the difference show layer 1, head 1 too.
    const auto hb = hoversNamed(out, "hover-b");
    ASSERT_EQ(hb.size(), 1u) << out;
    EXPECT_EQ(hb[0].query, 120);
    EXPECT_EQ(hb[0].key, 100);
    EXPECT_NEAR(hb[0].value, at(rb, 1, 1, hb[0]), 1e-6 + 1e-4 * hb[0].value);
    EXPECT_EQ(diffs[2].query, 120);
    EXPECT_NEAR(diffs[2].value, at(ra, 1, 1, diffs[2]) - at(rb, 1, 1, diffs[2]), 1e-6);

    // The summary: same tokens, the mean loss delta of every position.
    const auto summary = scriptNumbers(
        out, "compare identical", {"identical", "tokens-a", "tokens-b", "aligned", "mean-delta"});
    ASSERT_EQ(summary.size(), 5u) << out;
    EXPECT_EQ(summary[0], 1);
    EXPECT_EQ(summary[1], double(n));
    EXPECT_EQ(summary[2], double(n));
    EXPECT_EQ(summary[3], double(n));
    double delta = 0;
    int64_t used = 0;
    for (int64_t t = 0; t < n; ++t) {
        const double x = double((*da)->perToken->loss[t]) - (*db)->perToken->loss[t];
        if (!std::isnan(x)) delta += x, ++used;
    }
    EXPECT_NEAR(summary[4], delta / used, 1e-6);
    // Every row on the whole map: the track's mean equals core::compareTraces for the head.
    const auto rows =
        scriptNumbers(out, "row-divergence", {"rows", "first", "last", "mean-kl", "mean-js"});
    ASSERT_EQ(rows.size(), 5u) << out;
    EXPECT_EQ(rows[0], double(n));
    EXPECT_EQ(rows[1], 0);
    EXPECT_EQ(rows[2], double(n - 1));
    core::CompareOptions options;
    options.layers = {0};
    options.heads = {0};
    auto comparison = core::compareTraces(ra, rb, options);
    ASSERT_TRUE(comparison);
    ASSERT_TRUE(comparison->layers.at(0).heads.at(0).attention);
    const auto& head = *comparison->layers[0].heads[0].attention;
    EXPECT_NEAR(rows[3], head.klAB, 1e-5 * (1 + rows[3]));
    EXPECT_NEAR(rows[4], head.js, 1e-6);

    // Screenshots: A and B differ (two models); the difference view changes with its mode;
    // zooming to cells changes every canvas.
    const QImage d = loadPng(diffPng), l = loadPng(logPng), z = loadPng(zoomPng);
    ASSERT_FALSE(d.isNull() || l.isNull() || z.isNull());
    ASSERT_EQ(d.size(), l.size());
    const int w = d.width(), third = w / 3, top = 80, h = d.height() * 6 / 10;
    const QRect left(10, top, third - 90, h), middle(third + 10, top, third - 90, h),
        right(2 * third + 10, top, third - 90, h);
    EXPECT_GT(meanAbsDiffIn(d.copy(left), d.copy(middle), QRect(0, 0, left.width(), h)), 0.3)
        << "A and B look the same";
    EXPECT_GT(meanAbsDiffIn(d, l, right), 2.0) << "log-ratio looks like A - B";
    EXPECT_LT(meanAbsDiffIn(d, l, left), 0.5) << "switching the mode changed A's canvas";
    for (const QRect& r : {left, middle, right})
        EXPECT_GT(meanAbsDiffIn(l, z, r), 2.0) << "a canvas did not follow the zoom";
}

// Compare mode on two tokenizations of one text: a byte-level FoX, and one whose tokenizer
// prepends a BOS token (every id shifts by one position). The banner says the tokenizations
// differ, positions align by byte offsets (every byte token), there is no difference canvas,
// and the cursor set on A lands on B's token that ends at the same byte.
TEST(GuiSmoke, CompareModeAlignsTwoTokenizationsByByteOffsetsUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto shots = screenshotDir();
    const auto dir = freshDir(shots / "tokenizations");
    std::ofstream(dir / "text.txt") << "A forget gate decides how much of the past a head keeps; "
                                       "a slow gate remembers, a fast one forgets.";
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(sample::traceRandomFox(spec, dir / "text.txt", dir / "a.h5"));
    spec.vocabSize = 257, spec.seed = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(dir / "bos-model", spec));
    {
        std::ifstream in(dir / "bos-model" / "config.json");
        auto config = nlohmann::json::parse(in);
        config["gatescope_tokenizer"] = {{"kind", "byte"}, {"bos_id", 256}};
        std::ofstream(dir / "bos-model" / "config.json") << config.dump(1);
    }
    int status = 0;
    const std::string traced =
        runCapture(fmt::format("'{}' trace --model '{}' --input '{}' --out '{}' 2>&1",
                               GATESCOPE_CLI, (dir / "bos-model").string(),
                               (dir / "text.txt").string(), (dir / "b.h5").string()),
                   status);
    ASSERT_EQ(status, 0) << traced;
    const auto png = shots / "14-compare-tokenizations.png";
    std::filesystem::remove(png);
    const auto script = dir / "compare.script";
    std::ofstream(script) << "wait\ncursor 40\ncompare-summary\nscreenshot " << png.string()
                          << "\nquit 0\n";
    const std::string out = runViewerScript({dir / "a.h5", dir / "b.h5"}, script, shots, status);
    ASSERT_EQ(status, 0) << out;
    const auto s =
        scriptNumbers(out, "compare identical",
                      {"identical", "tokens-a", "tokens-b", "aligned", "cursor-a", "cursor-b"});
    ASSERT_EQ(s.size(), 6u) << out;
    EXPECT_EQ(s[0], 0) << "the token ids differ";
    EXPECT_EQ(s[2], s[1] + 1) << "B has a BOS token";
    EXPECT_EQ(s[3], s[1]) << "every byte token of A aligns with B's";
    EXPECT_EQ(s[4], 40);
    EXPECT_EQ(s[5], 41) << "the cursor maps to the token ending at the same byte";
    const QImage img = loadPng(png);
    ASSERT_FALSE(img.isNull());
    // Two canvases (no difference canvas): B's map fills the right half.
    const QRect rightHalf(img.width() / 2 + 40, 120, img.width() / 2 - 160, img.height() / 3);
    EXPECT_GT(distinctColours(img, rightHalf), 10u) << "B's map is not drawn";
}
