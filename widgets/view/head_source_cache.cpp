#include "widgets/view/head_source_cache.h"

#include <fmt/format.h>

namespace gatescope::widgets {

HeadSourceCache::HeadSourceCache(std::shared_ptr<const data::TraceReader> reader, size_t capacity)
    : m_reader(std::move(reader)), m_capacity(std::max<size_t>(1, capacity)) {}

bool HeadSourceCache::canRecompute(const data::LayerInfo& layer) {
    const core::MapSpec spec = core::mapSpecFromHeader(layer.header);
    const auto names = core::requiredFactors(spec);
    if (names.empty()) return false;
    for (const auto& name : names) {
        if (!layer.factor(name)) return false;
    }
    return true;
}

Result<std::shared_ptr<const HeadSource>> HeadSourceCache::get(int layer, int head) {
    auto lookup = [&]() -> std::shared_ptr<const HeadSource> {
        std::lock_guard lock(m_mutex);
        for (auto it = m_heads.begin(); it != m_heads.end(); ++it) {
            if ((*it)->layer == layer && (*it)->head == head) {
                auto found = *it;
                m_heads.erase(it);
                m_heads.push_front(found);
                return found;
            }
        }
        return nullptr;
    };
    if (auto hit = lookup()) return hit;
    std::lock_guard loading(m_loadMutex);
    if (auto hit = lookup()) return hit;  // loaded by another worker meanwhile
    auto loaded = load(layer, head);
    if (!loaded) return loaded.error();
    std::lock_guard lock(m_mutex);
    m_heads.push_front(*loaded);
    while (m_heads.size() > m_capacity)
        m_heads.pop_back();
    return loaded;
}

Result<std::shared_ptr<const HeadSource>> HeadSourceCache::load(int layer, int head) {
    const data::LayerInfo* info = m_reader->summary().layer(layer);
    if (!info) {
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} is not in the trace", layer),
                     m_reader->path(),
                     {}};
    }
    const core::MapSpec spec = core::mapSpecFromHeader(info->header);
    auto out = std::make_shared<HeadSource>();
    out->layer = layer;
    out->head = head;
    const int64_t n = m_reader->summary().nTokens;
    out->factors.n = n;
    for (const std::string& name : core::requiredFactors(spec)) {
        const data::FactorInfo* f = info->factor(name);
        if (!f) {
            return Error{ErrorKind::Missing, "factor needed to recompute exact tiles is absent",
                         m_reader->path(), data::schema::factorPath(layer, name)};
        }
        const int64_t stored = f->shape.empty() ? 1 : f->shape[0];
        const int64_t heads = info->header.nHeads;
        const int index = static_cast<int>(stored == heads ? head : head * stored / heads);
        auto rows = m_reader->factor(layer, name, index, 0, n);
        if (!rows) return rows.error();
        const int64_t width = rows->shape.size() == 2 ? rows->shape[1] : 1;
        out->factors.add(name, std::move(rows->values), width);
    }
    auto source = core::makeTileSource(spec, out->factors);
    if (!source) {
        Error e = source.error();
        if (e.file.empty()) e.file = m_reader->path();
        return e;
    }
    out->source = std::move(*source);
    return std::shared_ptr<const HeadSource>(std::move(out));
}

}  // namespace gatescope::widgets
