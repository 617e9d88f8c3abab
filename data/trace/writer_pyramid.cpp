// TraceWriter: pyramid levels and their causal 256 x 256 tiles.
#include <fmt/format.h>

#include <algorithm>

#include "data/h5/attribute.h"
#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"

namespace gatescope::data {

Status TraceWriter::createPyramid(int layer, std::string_view map, PyramidLevels levels,
                                  int heads) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (m_nTokens == 0) return usage("write the tokens before pyramids");
    auto state = layerState(layer);
    if (!state) return state.error();
    LayerState& l = **state;
    std::string path = schema::layerPath(layer) + "/pyramid/" + std::string(map);
    if (!schema::isValidName(map))
        return usage(fmt::format("bad map name '{}' (use 1-64 of A-Z a-z 0-9 _ . -)", map),
                     schema::layerPath(layer) + "/pyramid");
    if (l.pyramids.count(map)) return usage("pyramid is already created", path);
    if (levels.finest < 0 || levels.coarsest < levels.finest || levels.coarsest > 40 || heads < 1)
        return usage(fmt::format("bad pyramid: levels {}..{}, {} heads", levels.finest,
                                 levels.coarsest, heads),
                     path);
    auto pyramid = openOrCreateGroup(l.group, "pyramid");
    if (!pyramid) return fail(pyramid.error());
    auto mapGroup = h5::Group::create(*pyramid, map);
    if (!mapGroup) return fail(mapGroup.error());
    PyramidState created{levels, heads, {}};
    for (Pool pool : {Pool::Max, Pool::Mean}) {
        auto poolGroup = h5::Group::create(*mapGroup, toString(pool));
        if (!poolGroup) return fail(poolGroup.error());
        for (int level = levels.finest; level <= levels.coarsest; ++level) {
            auto side = static_cast<hsize_t>(levelSide(m_nTokens, level));
            auto tile = std::min<hsize_t>(side, kTileSide);
            h5::Type f32 = h5::Type::nativeFloat();
            auto dcpl = h5::PropertyList::chunkedDataset({1, tile, tile}, m_options.compression,
                                                         m_options.compressionLevel, f32,
                                                         poolGroup->where());
            if (!dcpl) return fail(dcpl.error());
            auto dataset = h5::Dataset::create(*poolGroup, std::to_string(level), f32,
                                               {static_cast<hsize_t>(heads), side, side}, *dcpl);
            if (!dataset) return fail(dataset.error());
            auto rc = h5::writeAttribute(*dataset, "level", int64_t{level});
            if (rc) rc = h5::writeAttribute(*dataset, "cell_size", int64_t{1} << level);
            if (rc) rc = h5::writeAttribute(*dataset, "n_tokens", m_nTokens);
            if (rc) rc = h5::writeAttribute(*dataset, "pool", std::string_view(toString(pool)));
            if (rc) rc = h5::writeAttribute(*dataset, "map", map);
            if (rc)
                rc =
                    nexus::describe(*dataset,
                                    fmt::format("{} ({}-pooled, {}-token cells) [head, query, key]",
                                                map, toString(pool), int64_t{1} << level),
                                    "image");
            if (!rc) return fail(rc.error());
            created.datasets.emplace(std::pair{pool, level}, std::move(*dataset));
        }
        // The coarsest level is the smallest: the quickest default plot for a viewer.
        auto rc = nexus::markData(*poolGroup, std::to_string(levels.coarsest), 3);
        if (!rc) return fail(rc.error());
    }
    l.pyramids.emplace(std::string(map), std::move(created));
    return Ok{};
}

Status TraceWriter::writePyramidTile(int layer, std::string_view map, Pool pool, int level,
                                     int head, int64_t tileRow, int64_t tileCol,
                                     const float* tile) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    auto state = layerState(layer);
    if (!state) return state.error();
    auto it = (*state)->pyramids.find(map);
    std::string path = schema::pyramidPath(layer, map, pool, level);
    if (it == (*state)->pyramids.end())
        return usage("pyramid is not created; call createPyramid first", path);
    PyramidState& pyramid = it->second;
    if (!pyramid.levels.contains(level))
        return usage(fmt::format("level {} is outside the pyramid's {}..{}", level,
                                 pyramid.levels.finest, pyramid.levels.coarsest),
                     path);
    int64_t tiles = tilesPerSide(m_nTokens, level);
    if (head < 0 || head >= pyramid.heads || tileRow < 0 || tileRow >= tiles || tileCol < 0 ||
        tileCol > tileRow || !tile)
        return usage(fmt::format("tile (head {}, row {}, col {}) is not a causal tile of a {} x {} "
                                 "grid with {} heads (col <= row; or data is null)",
                                 head, tileRow, tileCol, tiles, tiles, pyramid.heads),
                     path);
    int64_t side = levelSide(m_nTokens, level);
    int64_t rows = std::min(kTileSide, side - tileRow * kTileSide);
    int64_t cols = std::min(kTileSide, side - tileCol * kTileSide);
    std::vector<float> block(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r) {
        // Above the diagonal (key after query) nothing is causal: store exact zeros.
        int64_t causalCols = tileRow == tileCol ? std::min(cols, r + 1) : cols;
        std::copy(tile + r * kTileSide, tile + r * kTileSide + causalCols,
                  block.begin() + r * cols);
    }
    h5::Dataset& dataset = pyramid.datasets.at({pool, level});
    auto rc =
        dataset.writeBlock(h5::Type::nativeFloat(), block.data(),
                           {static_cast<hsize_t>(head), static_cast<hsize_t>(tileRow * kTileSide),
                            static_cast<hsize_t>(tileCol * kTileSide)},
                           {1, static_cast<hsize_t>(rows), static_cast<hsize_t>(cols)});
    if (!rc) return fail(rc.error());
    return Ok{};
}

}  // namespace gatescope::data
