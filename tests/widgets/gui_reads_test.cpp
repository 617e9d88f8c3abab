// The Reads dock of the real viewer under Xvfb: the cursor's attention row (what token 300
// reads) and, after clicking a listed token, that token's column (who reads it). Every listed
// weight, content and forgetting part is checked against the FoX formulas evaluated here from
// the stored factors, the first listed is the strongest of the whole row/column, the row sums
// to 1, and the strongest token is painted over the text in the colour of its weight.
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "support/sample_trace.h"
#include "widgets/fox_reference.h"
#include "widgets/gui_test_support.h"
#include "widgets/view/token_reads.h"
#include "widgets/view/trace_document.h"

using namespace gatescope;
using namespace gatescope::test;

namespace {

struct Listed {
    int64_t position;
    double weight, content, forget;
};

/// The `top=` list of the nth "script: reads mode=MODE" line.
std::vector<Listed> listed(const std::string& out, const std::string& mode) {
    std::vector<Listed> rows;
    const auto line = out.find("script: reads mode=" + mode);
    if (line == std::string::npos) return rows;
    const std::string text = out.substr(line, out.find('\n', line) - line);
    std::stringstream list(text.substr(text.find("top=") + 4));
    std::string item;
    while (std::getline(list, item, ',')) {
        Listed l{};
        char c;
        std::stringstream(item) >> l.position >> c >> l.weight >> c >> l.content >> c >> l.forget;
        rows.push_back(l);
    }
    return rows;
}

/// The most frequent colour inside `rect` of `img`.
QRgb modeColour(const QImage& img, QRect rect) {
    std::map<QRgb, int> count;
    rect = rect.intersected(img.rect());
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            ++count[img.pixel(x, y) & 0xFFFFFF];
    QRgb best = 0;
    int most = 0;
    for (auto [colour, n] : count)
        if (n > most) best = colour, most = n;
    return best;
}

/// Checks a listed row or column against the reference weights `ref` (by position).
void expectListed(const std::vector<Listed>& rows, const std::map<int64_t, double>& ref,
                  const data::TraceReader& r, int64_t fixed, bool row) {
    ASSERT_FALSE(rows.empty());
    double best = 0;
    for (auto [pos, w] : ref)
        best = std::max(best, w);
    EXPECT_NEAR(rows[0].weight, best, 1e-5 + 1e-4 * best) << "the first listed is not the max";
    for (const Listed& l : rows) {
        const int64_t q = row ? fixed : l.position, k = row ? l.position : fixed;
        const double w = ref.at(l.position);
        EXPECT_NEAR(l.weight, w, 1e-6 + 1e-4 * w) << l.position;
        const auto [content, forget] = foxLogitParts(r, 0, 0, q, k);
        EXPECT_NEAR(l.content, content, 1e-4 * (1 + std::abs(content))) << l.position;
        EXPECT_NEAR(l.forget, forget, 1e-4 * (1 + std::abs(forget))) << l.position;
    }
}

}  // namespace

TEST(GuiReads, RowOfTheCursorAndColumnOfAClickedTokenUnderXvfb) {
    SKIP_WITHOUT_XVFB();
    const auto trace = sample::sampleTrace();
    ASSERT_FALSE(trace.empty());
    const auto dir = freshDir(screenshotDir() / "reads");
    const auto rowPng = dir / "19-reads-row.png", colPng = dir / "20-reads-column.png";
    const auto script = dir / "reads.script";
    std::ofstream(script) << "wait\ncursor 300\nreads row\nscreenshot " << rowPng.string()
                          << "\nreads-click 1\nreads column\nscreenshot " << colPng.string()
                          << "\nquit 0\n";
    int status = 0;
    const std::string out = runViewerScript(trace, script, dir, status);
    ASSERT_EQ(status, 0) << out;
    auto doc = widgets::TraceDocument::open(trace);
    ASSERT_TRUE(doc.ok());
    const data::TraceReader& r = *(*doc)->reader;
    const int64_t n = (*doc)->n();

    // What token 300 reads: its row over keys 0..300, summing to 1.
    const auto row = listed(out, "row");
    ASSERT_EQ(row.size(), 12u) << out;
    std::map<int64_t, double> rowRef;
    for (int64_t k = 0; k <= 300; ++k)
        rowRef[k] = foxAttention(r, 0, 0, 300, k);
    expectListed(row, rowRef, r, 300, true);
    EXPECT_NEAR(scriptNumbers(out, "reads mode=row", {"sum"}).at(0), 1.0, 1e-4);
    EXPECT_EQ(scriptNumbers(out, "reads mode=row", {"split"}).at(0), 1);

    // The strongest key is painted in the colour of the top of the ramp.
    const auto painted = scriptNumbers(out, "reads-painted", {"position", "x", "y", "w", "h"});
    ASSERT_EQ(painted.size(), 5u) << out;
    EXPECT_EQ(painted[0], row[0].position);
    const QImage shot = loadPng(rowPng);
    ASSERT_FALSE(shot.isNull());
    const QRect rect{int(painted[1]), int(painted[2]), int(painted[3]), int(painted[4])};
    EXPECT_EQ(modeColour(shot, rect), widgets::readsColor(1) & 0xFFFFFF)
        << "the strongest key is not painted orange at " << painted[1] << "," << painted[2];

    // Clicking the second listed key moves the cursor there; its column is who reads it.
    const auto click = scriptNumbers(out, "reads-click", {"position", "cursor"});
    ASSERT_EQ(click.size(), 2u) << out;
    EXPECT_EQ(click[0], row[1].position);
    EXPECT_EQ(click[1], row[1].position);
    const int64_t key = row[1].position;
    const auto col = listed(out, "column");
    ASSERT_EQ(col.size(), 12u) << out;
    EXPECT_EQ(scriptNumbers(out, "reads mode=column", {"position"}).at(0), key);
    std::map<int64_t, double> colRef;
    for (int64_t q = key; q < n; ++q)
        colRef[q] = foxAttention(r, 0, 0, q, key);
    expectListed(col, colRef, r, key, false);
    EXPECT_GT(meanAbsDiff(shot, loadPng(colPng)), 0.05) << "the column looks like the row";
}
