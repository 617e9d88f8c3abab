// TraceReader: per-layer arrays (gates, factors) by row range, and pyramid tiles, through the
// block cache.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "data/common/float16.h"
#include "data/h5/dataset.h"
#include "data/trace/derived_decay.h"
#include "data/trace/trace_limits.h"
#include "data/trace/trace_reader.h"

namespace gatescope::data {

Result<Array> TraceReader::gates(int layer) const {
    auto lock = h5::lockLibrary();
    const LayerInfo* info = m_summary.layer(layer);
    if (!info) return error(ErrorKind::Missing, fmt::format("no layer {} in this trace", layer));
    std::string path = schema::gatesPath(layer);
    auto ds = dataset(path, {info->header.nHeads, m_summary.nTokens, info->header.nChannels},
                      Element::Float);
    if (!ds) return ds.error();
    Array out;
    out.shape = {info->header.nHeads, m_summary.nTokens, info->header.nChannels};
    if (out.shape[0] * out.shape[1] * out.shape[2] > kMaxWholeReadValues)
        return error(ErrorKind::Unsupported,
                     fmt::format("{} x {} x {} gate values are more than one read returns ({}); "
                                 "read them per head",
                                 out.shape[0], out.shape[1], out.shape[2], kMaxWholeReadValues),
                     path);
    out.values.resize(static_cast<size_t>(out.shape[0] * out.shape[1] * out.shape[2]));
    auto rc = (*ds)->read(h5::Type::nativeFloat(), out.values.data());
    if (!rc) return rc.error();
    return out;
}

Result<Array> TraceReader::gatesForHead(int layer, int head, int64_t rowBegin,
                                        int64_t rowEnd) const {
    const LayerInfo* info = m_summary.layer(layer);
    if (!info) return error(ErrorKind::Missing, fmt::format("no layer {} in this trace", layer));
    return readRows(schema::gatesPath(layer),
                    {info->header.nHeads, m_summary.nTokens, info->header.nChannels}, false, head,
                    rowBegin, rowEnd);
}

Result<Array> TraceReader::factor(int layer, std::string_view name, int head, int64_t rowBegin,
                                  int64_t rowEnd) const {
    const LayerInfo* info = m_summary.layer(layer);
    if (!info) return error(ErrorKind::Missing, fmt::format("no layer {} in this trace", layer));
    std::string path = schema::factorPath(layer, name);
    const FactorInfo* factor = info->factor(name);
    if (!factor) return error(ErrorKind::Missing, "no such factor", path);
    const LayerHeader& h = info->header;
    if (factor->shape.size() < 2 ||
        (factor->shape[0] != h.nHeads && factor->shape[0] != h.nKvHeads))
        return error(ErrorKind::Shape,
                     fmt::format("wrong shape: a factor must be [H, N, D] or [H, N] with H = "
                                 "n_heads ({}) or n_kv_heads ({}); found {} dimensions, H = {}",
                                 h.nHeads, h.nKvHeads, factor->shape.size(),
                                 factor->shape.empty() ? 0 : factor->shape[0]),
                     path);
    std::vector<int64_t> dims{factor->shape[0], m_summary.nTokens};
    if (factor->shape.size() == 3) dims.push_back(-1);
    return readRows(path, dims, true, head, rowBegin, rowEnd);
}

Result<Array> TraceReader::readRows(const std::string& path, const std::vector<int64_t>& dims,
                                    bool allowF16, int head, int64_t rowBegin,
                                    int64_t rowEnd) const {
    std::shared_ptr<h5::Dataset> ds;
    bool f16 = false, bf16 = false;
    int64_t width = 1;
    {
        auto lock = h5::lockLibrary();
        auto opened = dataset(path, dims, Element::Float, allowF16);
        if (!opened) return opened.error();
        ds = *opened;
        auto type = ds->type();
        if (!type) return type.error();
        f16 = type->size() == 2;
        bf16 = f16 && type->isBfloat16();
        auto actual = ds->dims();
        if (!actual) return actual.error();
        if (actual->size() == 3) width = static_cast<int64_t>((*actual)[2]);
    }
    int64_t n = m_summary.nTokens;
    if (head < 0 || head >= dims[0] || rowBegin < 0 || rowEnd < rowBegin || rowEnd > n)
        return error(ErrorKind::Usage,
                     fmt::format("request out of range: head {} of {}, rows [{}, {}) of {}", head,
                                 dims[0], rowBegin, rowEnd, n),
                     path);
    Array out;
    out.shape = {rowEnd - rowBegin};
    if (dims.size() == 3) out.shape.push_back(width);
    out.values.resize(static_cast<size_t>((rowEnd - rowBegin) * width));
    for (int64_t block = rowBegin / kRowBlock; block * kRowBlock < rowEnd; ++block) {
        int64_t first = block * kRowBlock;
        int64_t rows = std::min(kRowBlock, n - first);
        auto load = [&]() -> Result<BlockCache::Block> {
            auto values = std::make_shared<std::vector<float>>(static_cast<size_t>(rows * width));
            h5::Dims start{static_cast<hsize_t>(head), static_cast<hsize_t>(first)};
            h5::Dims count{1, static_cast<hsize_t>(rows)};
            if (dims.size() == 3) {
                start.push_back(0);
                count.push_back(static_cast<hsize_t>(width));
            }
            if (!f16) {
                auto rc = ds->readBlock(h5::Type::nativeFloat(), values->data(), start, count);
                if (!rc) return rc.error();
                return BlockCache::Block(values);
            }
            std::vector<uint16_t> halves(values->size());
            auto rc = ds->readBlock(bf16 ? h5::Type::bfloat16() : h5::Type::float16(),
                                    halves.data(), start, count);
            if (!rc) return rc.error();
            if (bf16)
                std::transform(halves.begin(), halves.end(), values->begin(), [](uint16_t b) {
                    const uint32_t word = uint32_t{b} << 16;  // exact: the upper half of a float
                    float value;
                    std::memcpy(&value, &word, 4);
                    return value;
                });
            else
                std::transform(halves.begin(), halves.end(), values->begin(), halfToFloat);
            return BlockCache::Block(values);
        };
        auto cached = m_cache.fetch(fmt::format("{}#{}#{}", path, head, block), load);
        if (!cached) return cached.error();
        int64_t from = std::max(rowBegin, first), to = std::min(rowEnd, first + rows);
        std::copy((*cached)->begin() + (from - first) * width,
                  (*cached)->begin() + (to - first) * width,
                  out.values.begin() + (from - rowBegin) * width);
    }
    return out;
}

Result<std::shared_ptr<h5::Dataset>> TraceReader::levelDataset(const std::string& path, int level,
                                                               int64_t& heads) const {
    const int64_t side = levelSide(m_summary.nTokens, level);
    auto lock = h5::lockLibrary();
    auto opened = dataset(path, {-1, side, side}, Element::Float);
    if (!opened) return opened.error();
    auto dims = (*opened)->dims();
    if (!dims) return dims.error();
    heads = static_cast<int64_t>((*dims)[0]);
    return opened;
}

Result<Tile> TraceReader::tileFrame(const std::string& path, int64_t heads, int level, int head,
                                    int64_t tileRow, int64_t tileCol) const {
    static const BlockCache::Block kZeros =
        std::make_shared<const std::vector<float>>(kTileSide * kTileSide, 0.0f);
    const int64_t side = levelSide(m_summary.nTokens, level);
    const int64_t tiles = tilesPerSide(m_summary.nTokens, level);
    if (head < 0 || head >= heads || tileRow < 0 || tileRow >= tiles || tileCol < 0 ||
        tileCol >= tiles)
        return error(
            ErrorKind::Usage,
            fmt::format("tile out of range: head {} of {}, tile ({}, {}) of a {} x {} grid", head,
                        heads, tileRow, tileCol, tiles, tiles),
            path);
    Tile tile;
    tile.rows = std::min(kTileSide, side - tileRow * kTileSide);
    tile.cols = std::min(kTileSide, side - tileCol * kTileSide);
    if (tileCol > tileRow) tile.data = kZeros;
    return tile;
}

Result<Tile> TraceReader::cachedTile(Tile tile, const std::string& path, int head, int64_t tileRow,
                                     int64_t tileCol,
                                     const std::function<Result<BlockCache::Block>()>& load) const {
    auto cached = m_cache.fetch(fmt::format("{}#{}#{}#{}", path, head, tileRow, tileCol), load);
    if (!cached) return cached.error();
    tile.data = *cached;
    return tile;
}

Result<Tile> TraceReader::pyramidTile(int layer, std::string_view map, Pool pool, int level,
                                      int head, int64_t tileRow, int64_t tileCol) const {
    const LayerInfo* info = m_summary.layer(layer);
    if (!info) return error(ErrorKind::Missing, fmt::format("no layer {} in this trace", layer));
    std::string path = schema::pyramidPath(layer, map, pool, level);
    const PyramidInfo* pyramid = info->pyramid(map);
    if (!pyramid) return error(ErrorKind::Missing, "no such pyramid map", path);
    if (level < 0 || level > kMaxPyramidLevel)
        return error(ErrorKind::Missing, "no such pyramid level", path);
    // Levels that are not stored: derived from c, or pooled from the stored level below.
    const int source = pyramid->poolSource(level);
    if (pyramid->derived || source >= 0) {
        if (std::find(pyramid->levels.begin(), pyramid->levels.end(), level) ==
            pyramid->levels.end())
            return error(ErrorKind::Missing, "no such pyramid level", path);
        return pyramid->derived
                   ? derivedTile(*info, pool, level, head, tileRow, tileCol)
                   : pooledTile(layer, *pyramid, pool, level, source, head, tileRow, tileCol);
    }
    int64_t heads = 0;
    auto ds = levelDataset(path, level, heads);
    if (!ds) return ds.error();
    auto framed = tileFrame(path, heads, level, head, tileRow, tileCol);
    if (!framed || framed->data) return framed;  // out of range, or a non-causal tile
    Tile tile = *framed;
    auto load = [&]() -> Result<BlockCache::Block> {
        std::vector<float> block(static_cast<size_t>(tile.rows * tile.cols));
        auto rc =
            (*ds)->readBlock(h5::Type::nativeFloat(), block.data(),
                             {static_cast<hsize_t>(head), static_cast<hsize_t>(tileRow * kTileSide),
                              static_cast<hsize_t>(tileCol * kTileSide)},
                             {1, static_cast<hsize_t>(tile.rows), static_cast<hsize_t>(tile.cols)});
        if (!rc) return rc.error();
        auto values = std::make_shared<std::vector<float>>(kTileSide * kTileSide, 0.0f);
        for (int64_t r = 0; r < tile.rows; ++r)
            std::copy(block.begin() + r * tile.cols, block.begin() + (r + 1) * tile.cols,
                      values->begin() + r * kTileSide);
        return BlockCache::Block(values);
    };
    return cachedTile(tile, path, head, tileRow, tileCol, load);
}

Result<Tile> TraceReader::derivedTile(const LayerInfo& info, Pool pool, int level, int head,
                                      int64_t tileRow, int64_t tileCol) const {
    const std::string path = schema::pyramidPath(info.index, schema::kDecayMap, pool, level);
    const int64_t n = m_summary.nTokens, side = levelSide(n, level);
    const int64_t tiles = tilesPerSide(n, level);
    if (head < 0 || head >= info.header.nHeads || tileRow < 0 || tileRow >= tiles || tileCol < 0 ||
        tileCol >= tiles)
        return error(
            ErrorKind::Usage,
            fmt::format("tile out of range: head {} of {}, tile ({}, {}) of a {} x {} grid", head,
                        info.header.nHeads, tileRow, tileCol, tiles, tiles),
            path);
    Tile tile;
    tile.rows = std::min(kTileSide, side - tileRow * kTileSide);
    tile.cols = std::min(kTileSide, side - tileCol * kTileSide);
    auto load = [&]() -> Result<BlockCache::Block> {
        auto c = factor(info.index, "log_decay_cumsum", head, 0, n);  // N floats, cached blocks
        if (!c) return c.error();
        const auto& extras = info.header.extras;
        const int64_t window = extras.contains("window") && extras["window"].is_number_integer()
                                   ? extras["window"].get<int64_t>()
                                   : 0;
        auto values = std::make_shared<std::vector<float>>(kTileSide * kTileSide);
        deriveDecayTile(c->values.data(), n, window, level, pool, tileRow, tileCol, values->data());
        return BlockCache::Block(values);
    };
    return cachedTile(tile, path, head, tileRow, tileCol, load);
}

}  // namespace gatescope::data
