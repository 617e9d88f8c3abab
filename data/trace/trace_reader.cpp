// TraceReader: opening, version checks and the summary (metadata read once, every count range-
// checked; reader_checks.cpp compares the datasets with it).
#include "data/trace/trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "data/common/bounded_json.h"
#include "data/h5/attribute.h"
#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "data/trace/trace_limits.h"

namespace gatescope::data {
namespace {

// Layer groups are named as the writer names them ("000".."999"), so two groups cannot claim
// one index.
std::optional<int> layerIndex(const std::string& name) {
    if (name.size() != 3 ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoi(name);
}

// Pyramid levels are named as schema::pyramidPath writes them: decimal without leading zeros,
// 0..kMaxPyramidLevel.
std::optional<int> levelIndex(const std::string& name) {
    if (name.empty() || name.size() > 2 || (name.size() > 1 && name[0] == '0') ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    const int level = std::stoi(name);
    if (level > kMaxPyramidLevel) return std::nullopt;
    return level;
}

}  // namespace

const FactorInfo* LayerInfo::factor(std::string_view name) const {
    for (const auto& f : factors)
        if (f.name == name) return &f;
    return nullptr;
}

const PyramidInfo* LayerInfo::pyramid(std::string_view map) const {
    for (const auto& p : pyramids)
        if (p.map == map) return &p;
    return nullptr;
}

const LayerInfo* TraceSummary::layer(int index) const {
    for (const auto& l : layers)
        if (l.index == index) return &l;
    return nullptr;
}

TraceReader::TraceReader(h5::File file, ReaderOptions options, uint64_t fileBytes)
    : m_file(std::make_unique<h5::File>(std::move(file))),
      m_options(options),
      m_fileBytes(fileBytes),
      m_cache(options.chunkCacheBytes) {
    m_summary.path = m_file->where().file;
}

TraceReader::~TraceReader() {
    auto lock = h5::lockLibrary();
    m_datasets.clear();
}

Error TraceReader::error(ErrorKind kind, std::string message, std::string object) const {
    return Error{kind, std::move(message), m_summary.path, std::move(object)};
}

Result<std::shared_ptr<TraceReader>> TraceReader::open(const std::filesystem::path& path,
                                                       ReaderOptions options) {
    // HDF5's own chunk cache is off: the block cache holds decoded data, bounded in total.
    auto file = h5::File::openReadOnly(path.string(), 0);
    if (!file) return file.error();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) return Error{ErrorKind::Io, "cannot read the file size: " + ec.message(), path, ""};
    return finishOpen(std::move(file), options, bytes);
}

Result<std::shared_ptr<TraceReader>> TraceReader::openImage(const std::string& name,
                                                            const void* data, size_t size,
                                                            ReaderOptions options) {
    return finishOpen(h5::File::openImage(name, data, size, 0), options, size);
}

Result<std::shared_ptr<TraceReader>> TraceReader::finishOpen(Result<h5::File> file,
                                                             ReaderOptions options,
                                                             uint64_t fileBytes) {
    if (!file) return file.error();
    std::shared_ptr<TraceReader> reader(new TraceReader(std::move(*file), options, fileBytes));
    auto rc = reader->readSummary();
    if (!rc) return rc.error();
    return reader;
}

Status TraceReader::readSummary() {
    auto lock = h5::lockLibrary();
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    auto name = h5::readStringAttribute(*root, "gatescope_format", 256);
    if (!name) {
        if (name.error().kind != ErrorKind::Missing) return name.error();
        return error(ErrorKind::Format, "not a gatescope trace (no gatescope_format attribute)",
                     "/");
    }
    // A different name is taken as another (future or foreign) flavour of the format: refused
    // like a newer version, so the caller sees "update gatescope" rather than "corrupt".
    if (*name != kFormatName)
        return error(ErrorKind::Version,
                     fmt::format("unknown trace format '{}' (this gatescope reads '{}' version {})",
                                 *name, kFormatName, kFormatVersion),
                     "/");
    auto version = h5::readIntAttribute(*root, "format_version");
    if (!version) return error(ErrorKind::Format, "no format_version attribute", "/");
    if (*version > kFormatVersion)
        return error(ErrorKind::Version,
                     fmt::format("trace format version {} is newer than this gatescope reads ({}); "
                                 "update gatescope",
                                 *version, kFormatVersion),
                     "/");
    if (*version < kOldestFormatVersion)
        return error(ErrorKind::Format, fmt::format("invalid format_version {}", *version), "/");
    m_summary.formatVersion = static_cast<int>(*version);
    auto nTokens = h5::readIntAttribute(*root, "n_tokens");
    if (!nTokens) return nTokens.error();
    if (*nTokens < 1 || *nTokens > kMaxTraceTokens)
        return error(ErrorKind::Format,
                     fmt::format("n_tokens is {}, must be in 1..{}", *nTokens, kMaxTraceTokens),
                     "/@n_tokens");
    m_summary.nTokens = *nTokens;
    for (auto [key, field] :
         {std::pair{"model_type", &m_summary.modelType}, {"compression", &m_summary.compression}}) {
        auto value = h5::readStringAttribute(*root, key, 4096);
        if (value)
            *field = std::move(*value);
        else if (value.error().kind != ErrorKind::Missing)
            return value.error();
    }
    auto perToken = h5::exists(*root, "per_token/loss");
    if (!perToken) return perToken.error();
    m_summary.hasPerToken = *perToken;
    if (auto rc = checkRootDatasets(); !rc) return rc;

    auto layers = h5::Group::open(*root, "layers");
    if (!layers) return layers.error();
    auto names = layers->childNames();
    if (!names) return names.error();
    for (const auto& layerName : *names) {
        auto layer = readLayer(*layers, layerName);
        if (!layer) return layer.error();
        m_summary.layers.push_back(std::move(*layer));
    }
    std::sort(m_summary.layers.begin(), m_summary.layers.end(),
              [](const LayerInfo& a, const LayerInfo& b) { return a.index < b.index; });
    auto nLayers = h5::readIntAttribute(*root, "n_layers");
    if (!nLayers && nLayers.error().kind != ErrorKind::Missing) return nLayers.error();
    if (nLayers && *nLayers != static_cast<int64_t>(m_summary.layers.size()))
        return error(ErrorKind::Format,
                     fmt::format("n_layers is {} but the file holds {} layer groups", *nLayers,
                                 m_summary.layers.size()),
                     "/@n_layers");
    return Ok{};
}

Status TraceReader::readLayerHeader(const h5::Group& group, const std::string& path,
                                    LayerHeader& h) const {
    for (auto [key, field, lo, hi] : {std::tuple{"n_heads", &h.nHeads, 1, kMaxTraceHeads},
                                      {"n_kv_heads", &h.nKvHeads, 1, kMaxTraceHeads},
                                      {"head_dim", &h.headDim, 1, kMaxTraceDim},
                                      {"value_dim", &h.valueDim, 0, kMaxTraceDim},
                                      {"n_channels", &h.nChannels, 1, kMaxTraceDim}}) {
        auto value = h5::readIntAttribute(group, key);
        if (!value) return value.error();
        if (*value < lo || *value > hi)
            return error(ErrorKind::Format,
                         fmt::format("{} is {}, must be in {}..{}", key, *value, lo, hi),
                         path + "@" + key);
        *field = static_cast<int>(*value);
    }
    auto kind = h5::readStringAttribute(group, "score_kind", 256);
    if (!kind) return kind.error();
    h.scoreKind = *kind;
    auto extras = h5::readStringAttribute(group, "extras");
    if (!extras) return extras.error();
    auto json = parseBoundedJson(*extras, m_summary.path, path + "@extras");
    if (!json) return json.error();
    if (!json->is_object())
        return error(ErrorKind::Format, "the extras attribute is not a JSON object",
                     path + "@extras");
    h.extras = std::move(*json);
    return Ok{};
}

Result<LayerInfo> TraceReader::readLayer(const h5::Group& layers, const std::string& name) {
    std::string path = "/layers/" + name;
    const auto index = layerIndex(name);
    if (!index)
        return error(ErrorKind::Format,
                     "layer groups must be named by their index in 3 digits (\"000\")", path);
    auto group = h5::Group::open(layers, name);
    if (!group) return group.error();
    LayerInfo info;
    info.index = *index;
    if (auto rc = readLayerHeader(*group, path, info.header); !rc) return rc.error();

    auto gates = h5::exists(*group, "gates/log_retention");
    if (!gates) return gates.error();
    info.hasGates = *gates;
    auto factors = h5::Group::open(*group, "factors");
    if (!factors && factors.error().kind != ErrorKind::Missing) return factors.error();
    if (factors) {
        auto factorNames = factors->childNames();
        if (!factorNames) return factorNames.error();
        for (const auto& factorName : *factorNames) {
            if (!schema::isValidName(factorName))
                return error(ErrorKind::Format, "invalid factor name", path + "/factors");
            auto dataset = h5::Dataset::open(*factors, factorName);
            if (!dataset) return dataset.error();
            auto dims = dataset->dims();
            auto type = dataset->type();
            if (!dims) return dims.error();
            if (!type) return type.error();
            const bool half = type->typeClass() == H5T_FLOAT && type->size() == 2;
            const bool bf16 = half && type->isBfloat16();
            FactorInfo factor{factorName, std::vector<int64_t>(dims->begin(), dims->end()),
                              half && !bf16, bf16};
            info.factors.push_back(std::move(factor));
        }
    }
    if (auto rc = readPyramids(*group, path, info); !rc) return rc.error();
    if (auto rc = checkLayerDatasets(info); !rc) return rc.error();
    return info;
}

Status TraceReader::readPyramids(const h5::Group& group, const std::string& path, LayerInfo& info) {
    auto pyramid = h5::Group::open(group, "pyramid");
    if (!pyramid && pyramid.error().kind != ErrorKind::Missing) return pyramid.error();
    if (!pyramid) return Ok{};
    auto maps = pyramid->childNames();
    if (!maps) return maps.error();
    for (const auto& map : *maps) {
        if (!schema::isValidName(map))
            return error(ErrorKind::Format, "invalid pyramid map name", path + "/pyramid");
        auto mapGroup = h5::Group::open(*pyramid, map);
        if (!mapGroup) return mapGroup.error();
        auto derived = h5::hasAttribute(*mapGroup, schema::kDerivedFrom);
        if (!derived) return derived.error();
        if (*derived) {
            auto p = readDerivedPyramid(*mapGroup, path + "/pyramid/" + map, info);
            if (!p) return p.error();
            info.pyramids.push_back(std::move(*p));
            continue;
        }
        PyramidInfo p{map, {}, {}, 0, false, {}};
        bool pooled = false;
        for (Pool pool : {Pool::Max, Pool::Mean}) {
            auto poolGroup = h5::Group::open(*pyramid, map + "/" + toString(pool));
            if (!poolGroup && poolGroup.error().kind != ErrorKind::Missing)
                return poolGroup.error();
            if (!poolGroup) continue;
            auto levels = poolGroup->childNames();
            if (!levels) return levels.error();
            std::vector<int> stored;
            for (const auto& level : *levels) {
                const auto value = levelIndex(level);
                if (!value)
                    return error(ErrorKind::Format,
                                 fmt::format("pyramid levels are named 0..{}", kMaxPyramidLevel),
                                 poolGroup->where().object + "/" + level);
                stored.push_back(*value);
            }
            std::sort(stored.begin(), stored.end());
            auto all = readPooledLevels(*poolGroup, stored);
            if (!all) return all.error();
            // Pooled levels are read alike in both pools: the same stored and pooled levels.
            const bool pooledHere = all->size() > stored.size();
            if (!p.pools.empty() && (pooledHere || pooled) &&
                (*all != p.levels || stored != p.stored))
                return error(ErrorKind::Format,
                             "the max and mean pools store different pyramid levels",
                             poolGroup->where().object);
            pooled = pooled || pooledHere;
            p.pools.push_back(pool);
            for (int level : *all)
                if (std::find(p.levels.begin(), p.levels.end(), level) == p.levels.end())
                    p.levels.push_back(level);
            for (int level : stored)
                if (std::find(p.stored.begin(), p.stored.end(), level) == p.stored.end())
                    p.stored.push_back(level);
            std::sort(p.levels.begin(), p.levels.end());
            std::sort(p.stored.begin(), p.stored.end());
        }
        info.pyramids.push_back(std::move(p));
    }
    return Ok{};
}

Result<std::vector<int>> TraceReader::readPooledLevels(const h5::Group& poolGroup,
                                                       const std::vector<int>& stored) const {
    auto has = h5::hasAttribute(poolGroup, schema::kCoarsestLevel);
    if (!has) return has.error();
    if (!*has || stored.empty()) return stored;
    auto coarsest = h5::readIntAttribute(poolGroup, schema::kCoarsestLevel);
    if (!coarsest) return coarsest.error();
    if (*coarsest < stored.back() || *coarsest > kMaxPyramidLevel)
        return error(ErrorKind::Format,
                     fmt::format("coarsest_level {} is below the stored level {} or above {}",
                                 *coarsest, stored.back(), kMaxPyramidLevel),
                     poolGroup.where().object);
    // A pooled tile reads the stored tiles under it: at most kPoolStride - 1 levels down.
    std::vector<int> levels;
    for (auto level = int64_t{stored.front()}, source = level; level <= *coarsest; ++level) {
        if (std::binary_search(stored.begin(), stored.end(), level)) source = level;
        if (level - source >= kPoolStride)
            return error(ErrorKind::Format,
                         fmt::format("pyramid level {} would be pooled from level {}: more than "
                                     "{} levels below it",
                                     level, source, kPoolStride - 1),
                         poolGroup.where().object);
        levels.push_back(static_cast<int>(level));
    }
    return levels;
}

Result<PyramidInfo> TraceReader::readDerivedPyramid(const h5::Group& mapGroup,
                                                    const std::string& path,
                                                    const LayerInfo& info) const {
    auto from = h5::readStringAttribute(mapGroup, schema::kDerivedFrom, 256);
    if (!from) return from.error();
    const std::string map = path.substr(path.rfind('/') + 1);
    // Only the decay map of an additive-decay layer is derived, from its [H, N] c.
    const FactorInfo* c = info.factor("log_decay_cumsum");
    if (*from != schema::kDerivedFromDecay || map != schema::kDecayMap ||
        info.header.scoreKind != schema::kAdditiveDecay || !c ||
        c->shape != std::vector<int64_t>{info.header.nHeads, m_summary.nTokens})
        return error(ErrorKind::Format,
                     fmt::format("a derived pyramid must be the decay map of an additive_decay "
                                 "layer with log_decay_cumsum [n_heads, N]; found '{}' from '{}'",
                                 map, *from),
                     path);
    PyramidInfo p{map, {Pool::Max, Pool::Mean}, {}, info.header.nHeads, true, {}};
    int64_t range[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        auto level = h5::readIntAttribute(mapGroup, i == 0 ? "finest_level" : "coarsest_level");
        if (!level) return level.error();
        range[i] = *level;
    }
    if (range[0] < 0 || range[1] < range[0] || range[1] > kMaxPyramidLevel)
        return error(ErrorKind::Format,
                     fmt::format("derived pyramid levels {}..{} are not within 0..{}", range[0],
                                 range[1], kMaxPyramidLevel),
                     path);
    for (auto level = range[0]; level <= range[1]; ++level)
        p.levels.push_back(static_cast<int>(level));
    return p;
}

}  // namespace gatescope::data
