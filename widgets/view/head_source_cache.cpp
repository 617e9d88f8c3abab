#include "widgets/view/head_source_cache.h"

namespace gatescope::widgets {

HeadSourceCache::HeadSourceCache(std::shared_ptr<const data::TraceReader> reader, size_t capacity)
    : m_reader(std::move(reader)), m_capacity(std::max<size_t>(1, capacity)) {}

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
    auto loaded = core::loadTraceHead(*m_reader, layer, head);
    if (!loaded) return loaded.error();
    std::shared_ptr<const HeadSource> source = std::move(*loaded);
    std::lock_guard lock(m_mutex);
    m_heads.push_front(source);
    while (m_heads.size() > m_capacity)
        m_heads.pop_back();
    return source;
}

}  // namespace gatescope::widgets
