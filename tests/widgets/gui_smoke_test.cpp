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

#include "sample_trace.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;

namespace {

std::string runCapture(const std::string& cmd, int& status) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    std::array<char, 4096> buf;
    while (size_t got = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), got);
    status = pclose(p);
    return out;
}

/// Runs `gatescope open TRACE --script SCRIPT` under xvfb-run in `dir`, with `dir` as the settings
/// home (so the test never touches the user's recent files); stdout and stderr together.
std::string runViewerScript(const std::filesystem::path& trace, const std::filesystem::path& script,
                            const std::filesystem::path& dir, int& status) {
    const std::string cmd = fmt::format(
        "cd '{0}' && HOME='{0}' XDG_CONFIG_HOME='{0}' timeout 300 xvfb-run -a -n {4} -s '-screen 0 "
        "1600x1000x24' '{1}' open '{2}' --script '{3}' 2>&1",
        dir.string(), GATESCOPE_CLI, trace.string(), script.string(), 100 + getpid() % 800);
    return runCapture(cmd, status);
}

/// Distinct colours in the image's rectangle: a blank or failed render has very few.
size_t distinctColours(const QImage& img, QRect rect) {
    std::set<QRgb> colours;
    rect = rect.intersected(img.rect());
    for (int y = rect.top(); y <= rect.bottom(); y += 2)
        for (int x = rect.left(); x <= rect.right(); x += 2)
            colours.insert(img.pixel(x, y));
    return colours.size();
}

double meanAbsDiff(const QImage& a, const QImage& b) {
    if (a.size() != b.size()) return 255;
    double sum = 0;
    int count = 0;
    for (int y = 0; y < a.height(); y += 3)
        for (int x = 0; x < a.width(); x += 3, ++count) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            sum += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) +
                   std::abs(qBlue(p) - qBlue(q));
        }
    return sum / (3.0 * count);
}

}  // namespace

TEST(GuiSmoke, OpenZoomToCellsSwitchHeadHoverUnderXvfb) {
    if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is not installed";
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
    const auto& header = r.summary().layer(0)->header;
    auto qf = r.factor(0, "q", 3, q, q + 1),
         kf = r.factor(0, "k", 3 * header.nKvHeads / header.nHeads, k, k + 1);
    auto lse = r.factor(0, "lse", 3, q, q + 1), cq = r.factor(0, "log_decay_cumsum", 3, q, q + 1),
         ck = r.factor(0, "log_decay_cumsum", 3, k, k + 1);
    ASSERT_TRUE(qf && kf && lse && cq && ck);
    double dot = 0;
    for (size_t x = 0; x < qf->values.size(); ++x)
        dot += double(qf->values[x]) * kf->values[x];
    const double expected = std::exp(header.extras.value("scale", 1.0) * dot + cq->values[0] -
                                     ck->values[0] - lse->values[0]);
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
    if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "xvfb-run is not installed";
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
