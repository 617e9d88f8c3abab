#include "widgets/view/tile_cache.h"

namespace gatescope::widgets {

TilePtr TileCache::find(const TileKey& key) {
    auto it = m_index.find(key);
    if (it == m_index.end()) return nullptr;
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return *it->second;
}

void TileCache::put(TilePtr tile) {
    if (!tile) return;
    auto it = m_index.find(tile->key);
    if (it != m_index.end()) {
        m_bytes -= (*it->second)->bytes();
        m_lru.erase(it->second);
        m_index.erase(it);
    }
    m_bytes += tile->bytes();
    m_lru.push_front(tile);
    m_index[tile->key] = m_lru.begin();
    while (m_bytes > m_capacity && m_lru.size() > 1) {
        const TilePtr& last = m_lru.back();
        m_bytes -= last->bytes();
        m_index.erase(last->key);
        m_lru.pop_back();
        ++m_evictions;
    }
}

void TileCache::clear() {
    m_lru.clear();
    m_index.clear();
    m_bytes = 0;
}

}  // namespace gatescope::widgets
