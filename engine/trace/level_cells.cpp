#include "engine/trace/level_cells.h"

#include <algorithm>

namespace gatescope::core {

LevelCells::LevelCells(int64_t n, data::PyramidLevels levels) : m_levels(levels) {
    for (int level = levels.finest; level <= levels.coarsest; ++level) {
        const int64_t side = data::levelSide(n, level);
        m_sides.push_back(side);
        for (auto& pool : m_cells)
            pool.emplace_back(static_cast<size_t>(side * side));
    }
}

void LevelCells::place(int level, data::Pool pool, int64_t tileRow, int64_t tileCol,
                       const float* tile) {
    const int i = level - m_levels.finest;
    const int64_t side = m_sides[i], t = data::kTileSide;
    float* cells = m_cells[pool == data::Pool::Max ? 0 : 1][i].data();
    const int64_t rows = std::min(t, side - tileRow * t), cols = std::min(t, side - tileCol * t);
    for (int64_t r = 0; r < rows; ++r)
        std::copy(tile + r * t, tile + r * t + cols,
                  cells + (tileRow * t + r) * side + tileCol * t);
}

Status LevelCells::writeTo(data::TraceWriter& writer, int layer, const std::string& map,
                           int head) const {
    for (int i = 0; i < m_levels.count(); ++i)
        for (auto pool : {data::Pool::Max, data::Pool::Mean}) {
            const auto& cells = m_cells[pool == data::Pool::Max ? 0 : 1][i];
            auto st =
                writer.writePyramidLevel(layer, map, pool, m_levels.finest + i, head, cells.data());
            if (!st) return st;
        }
    return Ok{};
}

}  // namespace gatescope::core
