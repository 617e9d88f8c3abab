// Figures for export and for the screen: one painter per figure kind (a map of one head, the
// layers x heads grid, retention, the per-token loss curve, an A / B / A - B comparison), all
// drawn through QPainter so PNG, SVG and PDF come from the same code. Data is loaded once
// (core/maps/map_cells.h: exact up to kExactLimit tokens, pyramid tiles beyond), then painting
// is pure. Layout is in figure units of 1/100 inch; text is real text (DejaVu Sans).
// Output carries no timestamps: the same figure of the same trace is the same file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <QRectF>
#include <QSizeF>

#include "core/maps/map_cells.h"
#include "data/common/result.h"
#include "data/trace/trace_reader.h"
#include "kernels/cpu/tile_source.h"
#include "widgets/view/color_scale.h"
#include "widgets/view/tile_key.h"

class QPainter;

namespace gatescope::widgets {

/// Context and Series are drawn from a stats report (analysis_figures.h), not by makeFigure.
enum class FigureKind { Map, Grid, Retention, Loss, Compare, Context, Series };
enum class FigureFormat { Png, Svg, Pdf };

const char* toString(FigureKind kind);
std::optional<FigureKind> parseFigureKind(std::string_view name);
const char* toString(FigureFormat format);
/// From the file's extension (.png, .svg, .pdf; case-insensitive).
std::optional<FigureFormat> formatFromPath(const std::filesystem::path& path);

/// Ranges up to this many tokens are computed exactly; longer ones read pyramid tiles.
using core::kExactLimit;

/// What a figure shows and how, the same settings as the viewer's map: an export of the view is
/// the view (map, colormap, scale, value range, token range).
struct FigureOptions {
    FigureKind kind = FigureKind::Map;
    /// The map of Map, Compare and Grid; Product multiplies attention and decay cell by cell (of
    /// max-pooled cells when the figure reads pyramid levels, as the viewer does).
    MapView map = MapView::Attention;
    int layer = 0;
    int head = 0;
    int64_t begin = 0;  ///< token range [begin, end) of map, compare, retention and loss
    int64_t end = -1;   ///< -1: to the end of the sequence
    /// The queries [queryBegin, queryEnd) of Map and Compare, whose keys are [begin, end): any
    /// rectangle of the map, as the viewer's screen shows it. Both -1: the token range (a square
    /// on the diagonal); queryEnd -1 alone: to the end of the sequence.
    int64_t queryBegin = -1;
    int64_t queryEnd = -1;
    /// Colormap, scale (linear, log, gamma) and value range (automatic: from the figure's cells)
    /// of Map, Compare and Grid; the other kinds use the colormap. Cells wholly in the masked
    /// future (keys after every query of the cell) are blank, as on screen.
    ColorSettings colors;
    double width = 0;   ///< figure units (1/100 inch); 0: the kind's default
    double height = 0;  ///< figure units; 0: the kind's default
};

class Figure {
public:
    virtual ~Figure() = default;
    /// Size in figure units (1/100 inch).
    virtual QSizeF size() const = 0;
    /// Paints into [0, width] x [0, height] of the painter's current coordinates (figure units).
    virtual void paint(QPainter& painter) const = 0;
    /// A one-line title, also written as the document title of SVG and PDF.
    virtual std::string title() const = 0;
    /// Where a Map figure draws its cells (figure units; cells are square, so a cell of query q
    /// and key k of the region sits at its offsets times width / keys); none for other kinds.
    virtual std::optional<QRectF> mapRect() const { return std::nullopt; }
};

/// Loads what `options` needs from `reader` (and `other`, the B trace of Compare, which must
/// have the same number of tokens). Blocking. Errors: Usage for bad layer/head/range/kind,
/// Missing for absent data, the reader's errors.
Result<std::unique_ptr<Figure>> makeFigure(const data::TraceReader& reader,
                                           const FigureOptions& options,
                                           const data::TraceReader* other = nullptr);

/// Renders `figure` as `format` (PNG at `dpi` with that DPI recorded; SVG and PDF as vectors
/// with real text). Deterministic bytes.
Result<std::string> renderFigure(const Figure& figure, FigureFormat format, int dpi = 100);

/// renderFigure then an atomic write to `path`.
Status writeFigure(const Figure& figure, const std::filesystem::path& path, FigureFormat format,
                   int dpi = 100);

}  // namespace gatescope::widgets
