// File > Export of the real viewer under Xvfb reproduces the view on screen: the exported PNG's
// cells have the colours of the same cells in a screenshot of the window, for a region off the
// diagonal (a rectangle of queries x keys, not a square), the product map, log scale and a
// non-default colormap; cells of the masked future are blank in the file, as on screen.
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/gui_test_support.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

/// What `export-view` printed: the region, where the PNG has its cells and where the window has.
struct ExportGeometry {
    int64_t keyBegin = 0, keyEnd = 0, queryBegin = 0, queryEnd = 0;
    double pngX = 0, pngY = 0, pngW = 0, pngH = 0;
    double x0 = 0, y0 = 0, key0 = 0, query0 = 0, tpp = 1, w = 0, h = 0;

    QPointF png(double q, double k) const {
        return {pngX + (k - keyBegin) * pngW / static_cast<double>(keyEnd - keyBegin),
                pngY + (q - queryBegin) * pngH / static_cast<double>(queryEnd - queryBegin)};
    }
    QPointF screen(double q, double k) const {
        return {x0 + (k - key0) / tpp, y0 + (q - query0) / tpp};
    }
};

bool parseGeometry(const std::string& out, const std::string& path, ExportGeometry& g) {
    std::smatch m;
    const std::regex head("export-view " + path +
                          R"( ok=1 keys=(\d+):(\d+) queries=(\d+):(\d+) png-map=([-0-9.]+),)"
                          R"(([-0-9.]+),([-0-9.]+),([-0-9.]+))");
    if (!std::regex_search(out, m, head)) return false;
    const std::string after = m.suffix();  // the screen line follows its export's line
    g.keyBegin = std::stoll(m[1]), g.keyEnd = std::stoll(m[2]);
    g.queryBegin = std::stoll(m[3]), g.queryEnd = std::stoll(m[4]);
    g.pngX = std::stod(m[5]), g.pngY = std::stod(m[6]), g.pngW = std::stod(m[7]),
    g.pngH = std::stod(m[8]);
    const auto s =
        scriptNumbers(after, "export-view screen", {"x0", "y0", "key0", "query0", "tpp", "w", "h"});
    if (s.size() != 7) return false;
    g.x0 = s[0], g.y0 = s[1], g.key0 = s[2], g.query0 = s[3], g.tpp = s[4], g.w = s[5], g.h = s[6];
    return true;
}

int channelDiff(QRgb a, QRgb b) {
    return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)),
                     std::abs(qBlue(a) - qBlue(b))});
}

/// Compares every whole token cell of the region on screen: the PNG's colour at the cell's
/// centre against the window's, shifted by (dq, dk) cells in the PNG (0, 0: the same cell).
/// Returns the share of past cells (key <= query) whose colours differ by more than 8 of 255.
double mismatchedShare(const ExportGeometry& g, const QImage& png, const QImage& window, int dq,
                       int dk, int* compared = nullptr) {
    int count = 0, bad = 0;
    for (int64_t q = g.queryBegin; q < g.queryEnd; ++q)
        for (int64_t k = g.keyBegin; k < g.keyEnd && k <= q; ++k) {
            const QPointF s = g.screen(q + 0.5, k + 0.5);
            // A whole cell inside the canvas, clear of what is drawn over the map: the position
            // numbers along the top and left edges, the minimap in the top-right corner.
            const double cell = 1.0 / g.tpp;
            const double left = g.x0 + std::max(cell, 56.0), top = g.y0 + std::max(cell, 24.0);
            const bool underMinimap = s.x() > g.x0 + g.w - 130 && s.y() < g.y0 + 140;
            if (s.x() < left || s.y() < top || s.x() > g.x0 + g.w - cell ||
                s.y() > g.y0 + g.h - cell || underMinimap)
                continue;
            const int64_t pq = q + dq, pk = k + dk;
            if (pq < g.queryBegin || pq >= g.queryEnd || pk < g.keyBegin || pk >= g.keyEnd ||
                pk > pq)
                continue;
            const QPointF p = g.png(pq + 0.5, pk + 0.5);
            ++count;
            if (channelDiff(png.pixel(p.toPoint()), window.pixel(s.toPoint())) > 8) ++bad;
        }
    if (compared) *compared = count;
    return count ? static_cast<double>(bad) / count : 1.0;
}

}  // namespace

TEST(GuiExportView, ExportedPngHasTheColoursOfTheRegionOnScreenUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "export-view");
    const auto off = (dir / "off-diagonal.png").string(), diag = (dir / "diagonal.png").string();
    std::ofstream(dir / "export.script")
        // Head 3 of layer 0 reads far back: the region off the diagonal has structure.
        << "wait\nhead 3\nmap product\nscale log\ncolormap magma\n"
           // Queries about 300, keys about 120: a rectangle wholly in the past.
           "zoom-cells 300 120 9\nwait\nexport-view "
        << off << " 100\nscreenshot " << (dir / "off-diagonal-window.png").string()
        << "\nzoom-cells 200 200 9\nwait\nexport-view " << diag << " 100\nscreenshot "
        << (dir / "diagonal-window.png").string() << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, dir / "export.script", dir, status);
    ASSERT_EQ(status, 0) << out;

    ExportGeometry g;
    ASSERT_TRUE(parseGeometry(out, off, g)) << out;
    // The region is what the canvas shows: its keys and queries, not a square of the keys.
    EXPECT_LE(g.keyBegin, static_cast<int64_t>(std::floor(g.key0)) + 1);
    EXPECT_NEAR(static_cast<double>(g.keyEnd), g.key0 + g.w * g.tpp, 1.0);
    EXPECT_NEAR(static_cast<double>(g.queryBegin), g.query0, 1.0);
    EXPECT_NEAR(static_cast<double>(g.queryEnd), g.query0 + g.h * g.tpp, 1.0);
    EXPECT_GT(g.queryBegin, g.keyEnd) << "the region should lie wholly below the diagonal";
    const QImage png = loadPng(off), window = loadPng(dir / "off-diagonal-window.png");
    ASSERT_FALSE(png.isNull());
    ASSERT_FALSE(window.isNull());
    EXPECT_NEAR(g.pngW / g.pngH,
                static_cast<double>(g.keyEnd - g.keyBegin) / (g.queryEnd - g.queryBegin), 1e-3);
    int compared = 0;
    EXPECT_EQ(mismatchedShare(g, png, window, 0, 0, &compared), 0.0);
    EXPECT_GT(compared, 1000);
    // The comparison tells neighbouring cells apart: one cell off, many disagree.
    EXPECT_GT(mismatchedShare(g, png, window, 0, 1), 0.1);
    EXPECT_GT(mismatchedShare(g, png, window, 1, 0), 0.1);
    EXPECT_GT(distinctColours(png, QRectF(g.pngX, g.pngY, g.pngW, g.pngH).toRect()), 50u);

    // On the diagonal: past cells match, and the masked future is blank paper, not the
    // colormap's lowest colour.
    ExportGeometry d;
    ASSERT_TRUE(parseGeometry(out, diag, d)) << out;
    const QImage png2 = loadPng(diag), window2 = loadPng(dir / "diagonal-window.png");
    ASSERT_FALSE(png2.isNull());
    EXPECT_EQ(mismatchedShare(d, png2, window2, 0, 0, &compared), 0.0);
    EXPECT_GT(compared, 500);
    int future = 0;
    for (int64_t q = d.queryBegin; q < d.queryEnd; q += 3)
        for (int64_t k = q + 2; k < d.keyEnd; k += 3, ++future)
            EXPECT_EQ(png2.pixel(d.png(q + 0.5, k + 0.5).toPoint()), qRgb(255, 255, 255))
                << "future cell " << q << "," << k;
    EXPECT_GT(future, 100);
}
