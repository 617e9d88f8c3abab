#include "widgets/view/tile_service.h"

#include <algorithm>

namespace gatescope::widgets {

TileService::TileService(TileScheduler::Loader loader, Options options,
                         std::function<void()> notify)
    : m_cache(options.cacheBytes),
      m_scheduler(std::move(loader), options.threads, std::move(notify)) {}

void TileService::request(int channel, const std::vector<TileKey>& wanted) {
    std::vector<TileKey> missing;
    for (const TileKey& key : wanted) {
        if (!m_cache.contains(key) && !failed(key)) missing.push_back(key);
    }
    m_scheduler.request(channel, missing);
}

int TileService::pump() {
    int arrived = 0;
    for (CompletedTile& done : m_scheduler.takeCompleted()) {
        m_latencies.push_back(done.latencySeconds);
        if (done.result) {
            m_cache.put(std::move(done.result.value()));
            ++arrived;
        } else {
            m_lastError = done.result.error().describe();
            if (!failed(done.key)) m_failed.push_back(done.key);
            ++arrived;
        }
    }
    return arrived;
}

void TileService::clearErrors() {
    m_failed.clear();
    m_lastError.reset();
}

bool TileService::failed(const TileKey& key) const {
    return std::find(m_failed.begin(), m_failed.end(), key) != m_failed.end();
}

}  // namespace gatescope::widgets
