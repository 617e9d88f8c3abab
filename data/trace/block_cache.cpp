#include "data/trace/block_cache.h"

namespace gatescope::data {

Result<BlockCache::Block> BlockCache::fetch(const std::string& key,
                                            const std::function<Result<Block>()>& load) {
    if (Block hit = find(key)) return hit;
    auto loaded = load();
    if (!loaded) return loaded;
    insert(key, *loaded);
    return loaded;
}

BlockCache::Block BlockCache::find(const std::string& key) {
    std::lock_guard lock(m_mutex);
    auto it = m_index.find(key);
    if (it == m_index.end()) {
        ++m_stats.misses;
        return nullptr;
    }
    ++m_stats.hits;
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return it->second->second;
}

void BlockCache::insert(const std::string& key, Block block) {
    size_t bytes = block->size() * sizeof(float);
    std::lock_guard lock(m_mutex);
    if (bytes > m_capacity || m_index.count(key)) return;
    m_lru.emplace_front(key, std::move(block));
    m_index.emplace(key, m_lru.begin());
    m_stats.bytes += bytes;
    while (m_stats.bytes > m_capacity) {
        const Entry& last = m_lru.back();
        m_stats.bytes -= last.second->size() * sizeof(float);
        m_index.erase(last.first);
        m_lru.pop_back();
        ++m_stats.evictions;
    }
}

BlockCache::Stats BlockCache::stats() const {
    std::lock_guard lock(m_mutex);
    Stats out = m_stats;
    out.capacityBytes = m_capacity;
    out.entries = m_index.size();
    return out;
}

}  // namespace gatescope::data
