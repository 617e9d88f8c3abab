// figures::drawCells: the cells of a map region sit at their tokens. A region that is no multiple
// of the cell step has a last column and row of fewer tokens; they are cut at the region's edge,
// not stretched (which would shift every cell off its axis position). Expectations are token
// arithmetic, checked on the painted pixels.
#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include "qt_test_app.h"
#include "widgets/figures/figure_parts.h"
#include "widgets/view/color_scale.h"

namespace gatescope::widgets {
namespace {

TEST(FigureCells, ALastCellOfFewerTokensIsCutAtTheRegionsEdge) {
    test::qtApp();
    // Keys 100-109 (10 tokens) and queries 0-9 in cells of 4 tokens: 3 x 3 cells, the last
    // column and row covering tokens 8-9 only.
    core::Cells cells;
    cells.region = {0, 10, 100, 110};
    cells.step = 4;
    cells.rows = cells.cols = 3;
    cells.values = {0.0f, 0.5f, 1.0f, 0.0f, 0.5f, 1.0f, 0.0f, 0.5f, 1.0f};
    const ColorSettings colors;
    const ValueRange range{0, 1};
    QImage image(100, 100, QImage::Format_RGBA8888);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        figures::drawCells(p, QRectF(0, 0, 100, 100), cells, colors, range);
    }
    auto colourAt = [&](int x, int y) { return image.pixel(x, y) & 0xffffffu; };
    auto colourOf = [&](float v) {
        const uint32_t rgba = colorOf(v, colors, range);  // RGBA bytes, R lowest
        return qRgb(rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff) & 0xffffffu;
    };
    // 10 px per token: column 1 (tokens 4-7) spans x 40-79, column 2 (tokens 8-9) x 80-99.
    EXPECT_EQ(colourAt(35, 50), colourOf(0.0f));
    EXPECT_EQ(colourAt(45, 50), colourOf(0.5f));
    EXPECT_EQ(colourAt(75, 50), colourOf(0.5f)) << "stretched: column 2 starts at x 67";
    EXPECT_EQ(colourAt(85, 50), colourOf(1.0f));
    EXPECT_EQ(colourAt(99, 99), colourOf(1.0f));
    // Nothing is painted past the region: the image's own cells end at x 120, clipped at 100.
    QImage wide(130, 100, QImage::Format_RGBA8888);
    wide.fill(Qt::white);
    {
        QPainter p(&wide);
        figures::drawCells(p, QRectF(0, 0, 100, 100), cells, colors, range);
    }
    EXPECT_EQ(wide.pixel(110, 50) & 0xffffffu, qRgb(255, 255, 255) & 0xffffffu);
}

}  // namespace
}  // namespace gatescope::widgets
