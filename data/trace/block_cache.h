// A bounded LRU of decoded blocks (pyramid tiles, 4096-row slices of factors and gates), shared by
// every thread reading one trace.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/common/result.h"

namespace gatescope::data {

/// Thread-safe: every method locks the cache's own mutex (never held while loading). Blocks are
/// immutable and shared, so a block evicted while a caller still uses it stays alive.
class BlockCache {
public:
    using Block = std::shared_ptr<const std::vector<float>>;

    struct Stats {
        size_t bytes = 0;
        size_t capacityBytes = 0;
        size_t entries = 0;
        uint64_t hits = 0;
        uint64_t misses = 0;
        uint64_t evictions = 0;
    };

    /// A cache holding at most `capacityBytes` of block values (0 caches nothing).
    explicit BlockCache(size_t capacityBytes) : m_capacity(capacityBytes) {}

    /// The cached block for `key`, or the one `load` returns (then cached). Two threads missing
    /// the same key may both load it; the values are identical, one copy is kept.
    Result<Block> fetch(const std::string& key, const std::function<Result<Block>()>& load);

    Stats stats() const;

private:
    Block find(const std::string& key);
    void insert(const std::string& key, Block block);

    using Entry = std::pair<std::string, Block>;
    mutable std::mutex m_mutex;
    size_t m_capacity;
    std::list<Entry> m_lru;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> m_index;
    Stats m_stats;
};

}  // namespace gatescope::data
