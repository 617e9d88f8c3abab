// TileService: what views talk to for tiles. Owns the bounded TileCache and a TileScheduler.
// GUI thread only, except that the `notify` callback given at construction runs on workers.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "widgets/view/tile_cache.h"
#include "widgets/view/tile_scheduler.h"

namespace gatescope::widgets {

class TileService {
public:
    struct Options {
        size_t cacheBytes = size_t{128} << 20;  ///< bound on loaded tiles kept (512 tiles)
        int threads = 2;                        ///< worker threads
    };

    /// `notify` runs on a worker after each result (post a call to pump() to the GUI thread).
    TileService(TileScheduler::Loader loader, Options options, std::function<void()> notify);

    /// The cached tile or null; never waits.
    TilePtr find(const TileKey& key) { return m_cache.find(key); }
    /// Replaces channel's pending requests with the keys of `wanted` that are not cached.
    void request(int channel, const std::vector<TileKey>& wanted);
    /// Moves finished loads into the cache; returns how many arrived. Errors are kept (the last
    /// one is lastError()) and the failing key is not requested again until clearErrors().
    int pump();

    std::optional<std::string> lastError() const { return m_lastError; }
    void clearErrors();
    bool failed(const TileKey& key) const;
    size_t outstanding() const { return m_scheduler.outstanding(); }
    const TileCache& cache() const { return m_cache; }
    /// Latencies (seconds) of every load since construction, in completion order.
    const std::vector<double>& latencies() const { return m_latencies; }

private:
    TileCache m_cache;
    std::vector<TileKey> m_failed;
    std::optional<std::string> m_lastError;
    std::vector<double> m_latencies;
    TileScheduler m_scheduler;  // last: its workers stop before the members above go
};

}  // namespace gatescope::widgets
