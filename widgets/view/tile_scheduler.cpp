#include "widgets/view/tile_scheduler.h"

#include <algorithm>

namespace gatescope::widgets {

TileScheduler::TileScheduler(Loader loader, int threads, std::function<void()> onCompleted)
    : m_loader(std::move(loader)), m_onCompleted(std::move(onCompleted)) {
    for (int i = 0; i < std::max(1, threads); ++i)
        m_threads.emplace_back([this] { work(); });
}

TileScheduler::~TileScheduler() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_pending.clear();
    }
    m_wake.notify_all();
    for (auto& t : m_threads)
        t.join();
}

void TileScheduler::request(int channel, const std::vector<TileKey>& keys) {
    {
        std::lock_guard lock(m_mutex);
        // Keep the original request time of keys that stay pending, so latency stays honest.
        std::deque<Pending>& queue = m_pending[channel];
        std::deque<Pending> next;
        const auto now = Clock::now();
        for (const TileKey& key : keys) {
            if (m_running.count(key)) continue;
            auto old = std::find_if(queue.begin(), queue.end(),
                                    [&](const Pending& p) { return p.key == key; });
            next.push_back({key, old != queue.end() ? old->since : now});
        }
        queue.swap(next);
    }
    m_wake.notify_all();
}

std::vector<CompletedTile> TileScheduler::takeCompleted() {
    std::lock_guard lock(m_mutex);
    std::vector<CompletedTile> out;
    out.swap(m_done);
    return out;
}

size_t TileScheduler::outstanding() const {
    std::lock_guard lock(m_mutex);
    size_t n = m_running.size();
    for (const auto& [channel, queue] : m_pending)
        n += queue.size();
    return n;
}

bool TileScheduler::popNext(Pending& out) {
    // Round-robin over channels so one busy view cannot starve another.
    if (m_pending.empty()) return false;
    for (size_t tries = 0; tries < m_pending.size(); ++tries) {
        auto it = m_pending.begin();
        std::advance(it, static_cast<long>((m_nextChannel + tries) % m_pending.size()));
        if (!it->second.empty()) {
            out = it->second.front();
            it->second.pop_front();
            m_nextChannel = (m_nextChannel + tries + 1) % m_pending.size();
            return true;
        }
    }
    return false;
}

void TileScheduler::work() {
    for (;;) {
        Pending job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || popNext(job); });
            if (m_stop) return;
            m_running.insert(job.key);
        }
        CompletedTile done{job.key, m_loader(job.key), 0};
        done.latencySeconds = std::chrono::duration<double>(Clock::now() - job.since).count();
        {
            std::lock_guard lock(m_mutex);
            m_running.erase(job.key);
            m_done.push_back(std::move(done));
        }
        if (m_onCompleted) m_onCompleted();
    }
}

}  // namespace gatescope::widgets
