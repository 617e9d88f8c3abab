#include "core/maps/map_cells.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/maps/trace_head.h"
#include "data/trace/pyramid_geometry.h"

namespace gatescope::core {

namespace {

void poolInto(Cells& cells, int64_t r, int64_t c, float v) {
    if (!std::isfinite(v)) return;
    float& dst = cells.values[static_cast<size_t>(r * cells.cols + c)];
    if (std::isnan(dst) || v > dst) dst = v;
}

Result<Cells> loadExact(const data::TraceReader& reader, int layer, int head, MapView view,
                        Cells cells) {
    auto th = core::loadTraceHead(reader, layer, head);
    if (!th) return th.error();
    const auto& src = *(*th)->source;
    const TokenRegion& region = cells.region;
    const int64_t len = region.keys();
    std::vector<float> band(static_cast<size_t>(cells.step * len));
    for (int64_t r = 0; r < cells.rows; ++r) {
        const int64_t row0 = region.queryBegin + r * cells.step;
        const int64_t rows = std::min(cells.step, region.queryEnd - row0);
        if (auto st = computeViewCells(src, view, row0, rows, region.keyBegin, len, band.data());
            !st)
            return Error{st.error().kind,
                         fmt::format("layer {} head {}: {}", layer, head, st.error().message),
                         reader.path(),
                         {}};
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < len; ++j)
                poolInto(cells, r, j / cells.step, band[static_cast<size_t>(i * len + j)]);
    }
    cells.source = "exact";
    return cells;
}

Result<Cells> loadPyramid(const data::TraceReader& reader, int layer, int head, MapView view,
                          Cells cells) {
    const auto* info = reader.summary().layer(layer);
    const char* name = kernels::toString(view == MapView::Decay ? kernels::MapKind::Decay
                                                                : kernels::MapKind::Attention);
    const auto* pyr = info ? info->pyramid(name) : nullptr;
    if (!pyr || pyr->levels.empty())
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} stores no {} pyramid and the range is longer than {} "
                                 "tokens (too long to compute exactly)",
                                 layer, name, kExactLimit),
                     reader.path(),
                     {}};
    // A product needs the decay map at the same levels.
    const auto* decay =
        view == MapView::Product ? info->pyramid(kernels::toString(kernels::MapKind::Decay)) : pyr;
    if (!decay || decay->levels != pyr->levels)
        return Error{ErrorKind::Unsupported,
                     fmt::format("layer {} stores no decay pyramid at the attention pyramid's "
                                 "levels; show attention and decay apart",
                                 layer),
                     reader.path(),
                     {}};
    // The finest stored level whose cells are at least a figure cell; else the coarsest.
    int level = pyr->levels.back();
    for (int l : pyr->levels)
        if ((int64_t{1} << l) >= cells.step) {
            level = l;
            break;
        }
    // A figure cell must hold at least one pyramid cell, or the figure shows gaps.
    const TokenRegion& region = cells.region;
    if ((int64_t{1} << level) > cells.step) {
        cells.step = int64_t{1} << level;
        cells.rows = (region.queries() + cells.step - 1) / cells.step;
        cells.cols = (region.keys() + cells.step - 1) / cells.step;
    }
    // Tiles above the diagonal are never stored: the maps are 0 there.
    cells.values.assign(static_cast<size_t>(cells.rows * cells.cols), 0.f);
    const int64_t n = reader.summary().nTokens;
    const int64_t side = data::levelSide(n, level);
    // Pyramid cells [r0, r1) x [c0, c1) of this level; tiles of them on or below the diagonal.
    const int64_t r0 = region.queryBegin >> level;
    const int64_t r1 = std::min(side, ((region.queryEnd - 1) >> level) + 1);
    const int64_t c0 = region.keyBegin >> level;
    const int64_t c1 = std::min(side, ((region.keyEnd - 1) >> level) + 1);
    const int64_t T = data::kTileSide;
    for (int64_t tr = r0 / T; tr <= (r1 - 1) / T; ++tr)
        for (int64_t tc = c0 / T; tc <= std::min(tr, (c1 - 1) / T); ++tc) {
            auto tile = loadViewTile(reader, layer, head, view, data::Pool::Max, level, tr, tc);
            if (!tile) return tile.error();
            for (int64_t i = 0; i < tile->rows; ++i) {
                const int64_t cr = tr * T + i;
                if (cr < r0 || cr >= r1) continue;
                // The pyramid cell straddling the region's first token joins its first cell.
                const int64_t r = ((cr << level) - region.queryBegin) / cells.step;
                for (int64_t j = 0; j < tile->cols; ++j) {
                    const int64_t cc = tc * T + j;
                    if (cc < c0 || cc >= c1) continue;
                    const int64_t c = ((cc << level) - region.keyBegin) / cells.step;
                    if (r >= 0 && r < cells.rows && c >= 0 && c < cells.cols)
                        poolInto(cells, r, c, tile->at(i, j));
                }
            }
        }
    cells.source = fmt::format("pyramid level {} (max)", level);
    return cells;
}

}  // namespace

Result<Cells> loadMapCells(const data::TraceReader& reader, int layer, int head, MapView view,
                           const TokenRegion& region, int maxCells) {
    const int64_t n = reader.summary().nTokens;
    if (region.queryBegin < 0 || region.keyBegin < 0 || region.queries() <= 0 ||
        region.keys() <= 0 || region.queryEnd > n || region.keyEnd > n || maxCells < 1)
        return Error{
            ErrorKind::Usage,
            fmt::format("queries {}:{} x keys {}:{} is not a region of the trace's {} "
                        "tokens",
                        region.queryBegin, region.queryEnd, region.keyBegin, region.keyEnd, n),
            reader.path(),
            {}};
    Cells cells;
    cells.region = region;
    const int64_t longer = std::max(region.queries(), region.keys());
    cells.step = std::max<int64_t>(1, (longer + maxCells - 1) / maxCells);
    cells.rows = (region.queries() + cells.step - 1) / cells.step;
    cells.cols = (region.keys() + cells.step - 1) / cells.step;
    cells.values.assign(static_cast<size_t>(cells.rows * cells.cols), NAN);
    if (longer <= kExactLimit) return loadExact(reader, layer, head, view, std::move(cells));
    return loadPyramid(reader, layer, head, view, std::move(cells));
}

}  // namespace gatescope::core
