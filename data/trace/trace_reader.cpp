// TraceReader: opening, version checks and the summary (metadata read once).
#include "data/trace/trace_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/h5/attribute.h"

namespace gatescope::data {
namespace {

bool allDigits(std::string_view text) {
    return !text.empty() && text.size() <= 9 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Result<int> intAttribute(const h5::Object& owner, std::string_view name) {
    auto value = h5::readIntAttribute(owner, name);
    if (!value) return value.error();
    return static_cast<int>(*value);
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

TraceReader::TraceReader(h5::File file, ReaderOptions options)
    : m_file(std::move(file)), m_options(options), m_cache(options.chunkCacheBytes) {
    m_summary.path = m_file.where().file;
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
    std::shared_ptr<TraceReader> reader(new TraceReader(std::move(*file), options));
    auto rc = reader->readSummary();
    if (!rc) return rc.error();
    return reader;
}

Status TraceReader::readSummary() {
    auto lock = h5::lockLibrary();
    auto root = h5::Group::root(m_file);
    if (!root) return root.error();
    auto name = h5::readStringAttribute(*root, "gatescope_format");
    if (!name)
        return error(ErrorKind::Format, "not a gatescope trace (no gatescope_format attribute)",
                     "/");
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
    if (*version < 1)
        return error(ErrorKind::Format, fmt::format("invalid format_version {}", *version), "/");
    m_summary.formatVersion = static_cast<int>(*version);
    auto nTokens = h5::readIntAttribute(*root, "n_tokens");
    if (!nTokens) return nTokens.error();
    if (*nTokens < 1)
        return error(ErrorKind::Format, fmt::format("n_tokens is {}, must be >= 1", *nTokens), "/");
    m_summary.nTokens = *nTokens;
    if (auto type = h5::readStringAttribute(*root, "model_type")) m_summary.modelType = *type;
    if (auto c = h5::readStringAttribute(*root, "compression")) m_summary.compression = *c;
    auto perToken = h5::exists(*root, "per_token/loss");
    if (!perToken) return perToken.error();
    m_summary.hasPerToken = *perToken;

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
    return Ok{};
}

Result<LayerInfo> TraceReader::readLayer(const h5::Group& layers, const std::string& name) {
    std::string path = "/layers/" + name;
    if (!allDigits(name))
        return error(ErrorKind::Format, "layer groups must be named by their index (\"000\")",
                     path);
    auto group = h5::Group::open(layers, name);
    if (!group) return group.error();
    LayerInfo info;
    info.index = std::stoi(name);
    LayerHeader& h = info.header;
    for (auto [key, field] : {std::pair{"n_heads", &h.nHeads},
                              {"n_kv_heads", &h.nKvHeads},
                              {"head_dim", &h.headDim},
                              {"value_dim", &h.valueDim},
                              {"n_channels", &h.nChannels}}) {
        auto value = intAttribute(*group, key);
        if (!value) return value.error();
        *field = *value;
    }
    auto kind = h5::readStringAttribute(*group, "score_kind");
    if (!kind) return kind.error();
    h.scoreKind = *kind;
    auto extras = h5::readStringAttribute(*group, "extras");
    if (!extras) return extras.error();
    h.extras = nlohmann::json::parse(*extras, nullptr, false);
    if (h.extras.is_discarded() || !h.extras.is_object())
        return error(ErrorKind::Format, "the extras attribute is not a JSON object",
                     path + "@extras");

    auto gates = h5::exists(*group, "gates/log_retention");
    if (!gates) return gates.error();
    info.hasGates = *gates;
    auto factors = h5::Group::open(*group, "factors");
    if (!factors && factors.error().kind != ErrorKind::Missing) return factors.error();
    if (factors) {
        auto factorNames = factors->childNames();
        if (!factorNames) return factorNames.error();
        for (const auto& factorName : *factorNames) {
            auto dataset = h5::Dataset::open(*factors, factorName);
            if (!dataset) return dataset.error();
            auto dims = dataset->dims();
            auto type = dataset->type();
            if (!dims) return dims.error();
            if (!type) return type.error();
            FactorInfo factor{factorName, std::vector<int64_t>(dims->begin(), dims->end()),
                              type->typeClass() == H5T_FLOAT && type->size() == 2};
            info.factors.push_back(std::move(factor));
        }
    }
    auto pyramid = h5::Group::open(*group, "pyramid");
    if (!pyramid && pyramid.error().kind != ErrorKind::Missing) return pyramid.error();
    if (pyramid) {
        auto maps = pyramid->childNames();
        if (!maps) return maps.error();
        for (const auto& map : *maps) {
            PyramidInfo p{map, {}, {}, 0};
            for (Pool pool : {Pool::Max, Pool::Mean}) {
                auto poolGroup = h5::Group::open(*pyramid, map + "/" + toString(pool));
                if (!poolGroup && poolGroup.error().kind != ErrorKind::Missing)
                    return poolGroup.error();
                if (!poolGroup) continue;
                p.pools.push_back(pool);
                auto levels = poolGroup->childNames();
                if (!levels) return levels.error();
                for (const auto& level : *levels) {
                    if (!allDigits(level)) continue;
                    int value = std::stoi(level);
                    if (std::find(p.levels.begin(), p.levels.end(), value) == p.levels.end())
                        p.levels.push_back(value);
                    if (p.heads == 0) {
                        auto dataset = h5::Dataset::open(*poolGroup, level);
                        if (!dataset) return dataset.error();
                        auto dims = dataset->dims();
                        if (!dims) return dims.error();
                        if (!dims->empty()) p.heads = static_cast<int>((*dims)[0]);
                    }
                }
            }
            std::sort(p.levels.begin(), p.levels.end());
            info.pyramids.push_back(std::move(p));
        }
    }
    return info;
}

}  // namespace gatescope::data
