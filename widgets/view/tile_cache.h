// TileCache: the viewer's bounded LRU of loaded tiles, by bytes. GUI thread only (not
// thread-safe): workers hand results to the GUI thread, which inserts them here.
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>

#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

class TileCache {
public:
    /// A cache holding at most `capacityBytes` of tiles (at least one tile is always kept).
    explicit TileCache(size_t capacityBytes) : m_capacity(capacityBytes) {}

    /// The tile for `key` (and marks it recently used), or null.
    TilePtr find(const TileKey& key);
    /// Whether `key` is cached, without touching the LRU order.
    bool contains(const TileKey& key) const { return m_index.count(key) != 0; }
    /// Inserts or replaces, then evicts least recently used tiles beyond the capacity.
    void put(TilePtr tile);
    void clear();

    size_t bytes() const { return m_bytes; }
    size_t size() const { return m_index.size(); }
    size_t capacityBytes() const { return m_capacity; }
    uint64_t evictions() const { return m_evictions; }

private:
    size_t m_capacity;
    size_t m_bytes = 0;
    uint64_t m_evictions = 0;
    std::list<TilePtr> m_lru;  // most recent first
    std::unordered_map<TileKey, std::list<TilePtr>::iterator, TileKeyHash> m_index;
};

}  // namespace gatescope::widgets
