// TraceWriter: pyramid levels and their causal 256 x 256 tiles.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "data/h5/attribute.h"
#include "data/h5/chunk_writer.h"
#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"
#include "data/trace/writer_state.h"

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
    PyramidState created{levels, heads, false, {}};
    // The decay map of an additive-decay layer is exp(c_i - c_j): readers derive its cells from
    // the stored c (derived_decay.h) when every head's c is there and non-increasing.
    const bool allMonotone =
        !l.monotoneDecay.empty() &&
        std::all_of(l.monotoneDecay.begin(), l.monotoneDecay.end(), [](char m) { return m; });
    if (m_options.deriveDecayPyramids && map == schema::kDecayMap &&
        l.header.scoreKind == schema::kAdditiveDecay && allMonotone &&
        static_cast<int>(l.monotoneDecay.size()) == l.header.nHeads && heads <= l.header.nHeads) {
        created.derived = true;
        auto rc = h5::writeAttribute(*mapGroup, schema::kDerivedFrom,
                                     std::string_view(schema::kDerivedFromDecay));
        if (rc) rc = h5::writeAttribute(*mapGroup, "finest_level", int64_t{levels.finest});
        if (rc) rc = h5::writeAttribute(*mapGroup, "coarsest_level", int64_t{levels.coarsest});
        if (!rc) return fail(rc.error());
        l.pyramids.emplace(std::string(map), std::move(created));
        return Ok{};
    }
    // Levels between stored ones are pooled by readers from the nearest stored level below
    // (2^k x 2^k blocks of its cells): the stored levels hold everything they show.
    const bool pooled = m_options.deriveCoarseLevels && levels.count() > 1;
    for (Pool pool : {Pool::Max, Pool::Mean}) {
        auto poolGroup = h5::Group::create(*mapGroup, toString(pool));
        if (!poolGroup) return fail(poolGroup.error());
        if (pooled) {
            auto rc =
                h5::writeAttribute(*poolGroup, schema::kCoarsestLevel, int64_t{levels.coarsest});
            if (!rc) return fail(rc.error());
        }
        int storedCoarsest = levels.finest;
        for (int level = levels.finest; level <= levels.coarsest; ++level) {
            if (!m_options.storesLevel(levels, level)) continue;
            storedCoarsest = level;
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
        // The coarsest stored level is the smallest: the quickest default plot for a viewer.
        auto rc = nexus::markData(*poolGroup, std::to_string(storedCoarsest), 3);
        if (!rc) return fail(rc.error());
    }
    l.pyramids.emplace(std::string(map), std::move(created));
    return Ok{};
}

bool TraceWriter::derivesPyramid(int layer, std::string_view map) const {
    if (!m_storage) return false;
    auto l = m_storage->layers.find(layer);
    if (l == m_storage->layers.end()) return false;
    auto p = l->second.pyramids.find(map);
    return p != l->second.pyramids.end() && p->second.derived;
}

bool TraceWriter::storesPyramidLevel(int layer, std::string_view map, int level) const {
    if (!m_storage) return false;
    auto l = m_storage->layers.find(layer);
    if (l == m_storage->layers.end()) return false;
    auto p = l->second.pyramids.find(map);
    return p != l->second.pyramids.end() && p->second.datasets.count({Pool::Max, level}) > 0;
}

namespace {

/// Fills a chunk of side `chunkSide` with the causal cells of a rows x cols tile (row stride
/// `stride`) and zeros elsewhere: past the tile's edge and, on a diagonal tile, above the diagonal
/// (key after query). Writes every cell once.
void fillChunk(const float* src, int64_t stride, int64_t rows, int64_t cols, bool diagonal,
               float* chunk, int64_t chunkSide) {
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t causal = diagonal ? std::min(cols, r + 1) : cols;
        float* row = chunk + r * chunkSide;
        std::copy(src + r * stride, src + r * stride + causal, row);
        std::fill(row + causal, row + chunkSide, 0.0f);
    }
    std::fill(chunk + rows * chunkSide, chunk + chunkSide * chunkSide, 0.0f);
}

}  // namespace

Result<h5::Dataset*> TraceWriter::pyramidLevel(int layer, std::string_view map, Pool pool,
                                               int level, int head) {
    if (auto rc = usable(); !rc) return rc.error();
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
    if (head < 0 || head >= pyramid.heads)
        return usage(fmt::format("head {} is outside 0..{}", head, pyramid.heads - 1), path);
    // Not stored (a derived map, or a level readers pool): the tiles are dropped.
    auto stored = pyramid.datasets.find({pool, level});
    return stored == pyramid.datasets.end() ? nullptr : &stored->second;
}

Status TraceWriter::writePyramidTile(int layer, std::string_view map, Pool pool, int level,
                                     int head, int64_t tileRow, int64_t tileCol,
                                     const float* tile) {
    auto dataset = pyramidLevel(layer, map, pool, level, head);
    if (!dataset) return dataset.error();
    if (!*dataset) return Ok{};
    const int64_t tiles = tilesPerSide(m_nTokens, level);
    if (tileRow < 0 || tileRow >= tiles || tileCol < 0 || tileCol > tileRow || !tile)
        return usage(fmt::format("tile (row {}, col {}) is not a causal tile of a {} x {} grid "
                                 "(col <= row; or data is null)",
                                 tileRow, tileCol, tiles, tiles),
                     schema::pyramidPath(layer, map, pool, level));
    const int64_t side = levelSide(m_nTokens, level), chunkSide = std::min(side, kTileSide);
    const auto cells = static_cast<size_t>(chunkSide * chunkSide);
    // fillChunk writes every cell
    auto chunk = std::make_unique_for_overwrite<unsigned char[]>(cells * sizeof(float));
    fillChunk(tile, kTileSide, std::min(kTileSide, side - tileRow * kTileSide),
              std::min(kTileSide, side - tileCol * kTileSide), tileRow == tileCol,
              reinterpret_cast<float*>(chunk.get()), chunkSide);
    const h5::Dims offset{static_cast<hsize_t>(head), static_cast<hsize_t>(tileRow * kTileSide),
                          static_cast<hsize_t>(tileCol * kTileSide)};
    const void* data = chunk.get();
    auto rc = store({*dataset, encoding(sizeof(float)), cells * sizeof(float), {{offset, data}}},
                    std::move(chunk));
    if (!rc) return fail(rc.error());
    return Ok{};
}

Status TraceWriter::writePyramidLevel(int layer, std::string_view map, Pool pool, int level,
                                      int head, const float* cells, int heads) {
    auto dataset = pyramidLevel(layer, map, pool, level, head);
    if (!dataset) return dataset.error();
    if (heads > 1)  // the last head is one of the pyramid's too
        if (auto last = pyramidLevel(layer, map, pool, level, head + heads - 1); !last)
            return last.error();
    if (!*dataset) return Ok{};
    if (!cells || heads < 1)
        return usage("level data is null (or no heads)",
                     schema::pyramidPath(layer, map, pool, level));
    const int64_t side = levelSide(m_nTokens, level), chunkSide = std::min(side, kTileSide);
    const int64_t tiles = tilesPerSide(m_nTokens, level), chunkCells = chunkSide * chunkSide;
    // Each tile is gathered from the level by the thread that encodes it (h5::ChunkWriter), so
    // memory stays bounded by the encoders' lead over the store while a 16384-cell level has 2080
    // causal tiles, and the gathering (every stored byte copied once) runs on every encoder
    // thread; the heads' tiles share the encoders, so that a coarse level of one tile still gives
    // every thread work.
    std::vector<h5::PlainChunk> chunks;
    chunks.reserve(static_cast<size_t>(tiles * (tiles + 1) / 2 * heads));
    for (int h = 0; h < heads; ++h) {
        const float* level0 = cells + static_cast<int64_t>(h) * side * side;
        for (int64_t tr = 0; tr < tiles; ++tr) {
            for (int64_t tc = 0; tc <= tr; ++tc) {
                const float* tile = level0 + tr * kTileSide * side + tc * kTileSide;
                const int64_t rows = std::min(kTileSide, side - tr * kTileSide);
                const int64_t cols = std::min(kTileSide, side - tc * kTileSide);
                chunks.push_back(
                    {{static_cast<hsize_t>(head + h), static_cast<hsize_t>(tr * kTileSide),
                      static_cast<hsize_t>(tc * kTileSide)},
                     nullptr,
                     [=](void* out) {
                         fillChunk(tile, side, rows, cols, tr == tc, static_cast<float*>(out),
                                   chunkSide);
                     }});
            }
        }
    }
    auto rc = store({*dataset, encoding(sizeof(float)),
                     static_cast<size_t>(chunkCells) * sizeof(float), std::move(chunks)});
    if (!rc) return fail(rc.error());
    return Ok{};
}

}  // namespace gatescope::data
