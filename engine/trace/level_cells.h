// Private to engine/trace: one head's pyramid levels of one map, both pools, held as whole
// S x S levels while kernels::buildPyramid delivers their tiles, then written with
// TraceWriter::writePyramidLevel (tiles compressed in parallel). Memory: 4/3 S^2 floats per pool
// of the finest side S (TraceRequest::pyramidFinestSide). Not thread-safe; writeTo may run on
// another thread once filling is done.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/trace/pyramid_geometry.h"
#include "data/trace/trace_writer.h"

namespace gatescope::core {

class LevelCells {
public:
    /// Levels `levels` of an n-token map, every cell 0.
    LevelCells(int64_t n, data::PyramidLevels levels);
    /// Places a kTileSide^2 row-major tile (cells past the level's side ignored).
    void place(int level, data::Pool pool, int64_t tileRow, int64_t tileCol, const float* tile);
    /// Writes every level and pool as head `head` of pyramid `map` of `layer`.
    Status writeTo(data::TraceWriter& writer, int layer, const std::string& map, int head) const;

private:
    data::PyramidLevels m_levels;
    std::vector<int64_t> m_sides;
    std::vector<std::vector<float>> m_cells[2];  ///< [max, mean][level]
};

}  // namespace gatescope::core
