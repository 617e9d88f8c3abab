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

Result<Cells> loadExact(const data::TraceReader& reader, int layer, int head, kernels::MapKind kind,
                        Cells cells) {
    auto th = core::loadTraceHead(reader, layer, head);
    if (!th) return th.error();
    const auto& src = *(*th)->source;
    const int64_t len = cells.end - cells.begin;
    std::vector<float> band(static_cast<size_t>(cells.step * len));
    for (int64_t r = 0; r < cells.rows; ++r) {
        const int64_t row0 = cells.begin + r * cells.step;
        const int64_t rows = std::min(cells.step, cells.end - row0);
        src.compute(kind, row0, rows, cells.begin, len, band.data());
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < len; ++j)
                poolInto(cells, r, j / cells.step, band[static_cast<size_t>(i * len + j)]);
    }
    cells.source = "exact";
    return cells;
}

Result<Cells> loadPyramid(const data::TraceReader& reader, int layer, int head,
                          kernels::MapKind kind, Cells cells) {
    const auto* info = reader.summary().layer(layer);
    const char* name = kernels::toString(kind);
    const auto* pyr = info ? info->pyramid(name) : nullptr;
    if (!pyr || pyr->levels.empty())
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} stores no {} pyramid and the range is longer than {} "
                                 "tokens (too long to compute exactly)",
                                 layer, name, kExactLimit),
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
    if ((int64_t{1} << level) > cells.step) {
        cells.step = int64_t{1} << level;
        cells.rows = cells.cols = (cells.end - cells.begin + cells.step - 1) / cells.step;
    }
    // Tiles above the diagonal are never stored: the maps are 0 there.
    cells.values.assign(static_cast<size_t>(cells.rows * cells.cols), 0.f);
    const int64_t n = reader.summary().nTokens;
    const int64_t side = data::levelSide(n, level);
    const int64_t c0 = cells.begin >> level, c1 = std::min(side, ((cells.end - 1) >> level) + 1);
    const int64_t t0 = c0 / data::kTileSide, t1 = (c1 - 1) / data::kTileSide;
    for (int64_t tr = t0; tr <= t1; ++tr)
        for (int64_t tc = t0; tc <= tr; ++tc) {
            auto tile = reader.pyramidTile(layer, name, data::Pool::Max, level, head, tr, tc);
            if (!tile) return tile.error();
            for (int64_t i = 0; i < tile->rows; ++i) {
                const int64_t cr = tr * data::kTileSide + i;
                if (cr < c0 || cr >= c1) continue;
                const int64_t r = ((cr << level) - cells.begin) / cells.step;
                for (int64_t j = 0; j < tile->cols; ++j) {
                    const int64_t cc = tc * data::kTileSide + j;
                    if (cc < c0 || cc >= c1) continue;
                    const int64_t c = ((cc << level) - cells.begin) / cells.step;
                    if (r >= 0 && r < cells.rows && c >= 0 && c < cells.cols)
                        poolInto(cells, r, c, tile->at(i, j));
                }
            }
        }
    cells.source = fmt::format("pyramid level {} (max)", level);
    return cells;
}

}  // namespace

Result<Cells> loadMapCells(const data::TraceReader& reader, int layer, int head,
                           kernels::MapKind kind, int64_t begin, int64_t end, int maxCells) {
    Cells cells;
    cells.begin = begin;
    cells.end = end;
    const int64_t len = end - begin;
    cells.step = std::max<int64_t>(1, (len + maxCells - 1) / maxCells);
    cells.rows = cells.cols = (len + cells.step - 1) / cells.step;
    cells.values.assign(static_cast<size_t>(cells.rows * cells.cols), NAN);
    if (len <= kExactLimit) return loadExact(reader, layer, head, kind, std::move(cells));
    return loadPyramid(reader, layer, head, kind, std::move(cells));
}

}  // namespace gatescope::core
