// TileScheduler: a small pool of worker threads that load tiles. Each client view has a channel;
// a new request on a channel replaces that channel's pending (not yet started) keys, so panning
// never queues stale work. Results are collected by the GUI thread with takeCompleted().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include "data/common/result.h"
#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

/// A finished load: the tile or the error, and how long it waited plus ran (request to done).
struct CompletedTile {
    TileKey key;
    Result<TilePtr> result = Error{};
    double latencySeconds = 0;
};

class TileScheduler {
public:
    /// Loads one tile; called on worker threads, several at once, so it must be thread-safe.
    using Loader = std::function<Result<TilePtr>(const TileKey&)>;

    /// Starts `threads` workers (at least 1). `onCompleted` is called on a worker thread after
    /// each result is queued (e.g. to post a repaint to the GUI thread); it may be empty.
    TileScheduler(Loader loader, int threads, std::function<void()> onCompleted);
    /// Stops the workers: pending keys are dropped, running loads finish first.
    ~TileScheduler();

    TileScheduler(const TileScheduler&) = delete;
    TileScheduler& operator=(const TileScheduler&) = delete;

    /// Replaces channel `channel`'s pending keys with `keys` (in priority order). Keys already
    /// running are not queued again. Any thread.
    void request(int channel, const std::vector<TileKey>& keys);
    /// Results finished since the last call, oldest first. Any thread (normally the GUI's).
    std::vector<CompletedTile> takeCompleted();

    /// Keys queued plus running.
    size_t outstanding() const;

private:
    using Clock = std::chrono::steady_clock;
    struct Pending {
        TileKey key;
        Clock::time_point since;
    };
    void work();
    bool popNext(Pending& out);

    Loader m_loader;
    std::function<void()> m_onCompleted;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::map<int, std::deque<Pending>> m_pending;
    std::unordered_set<TileKey, TileKeyHash> m_running;
    std::vector<CompletedTile> m_done;
    size_t m_nextChannel = 0;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

}  // namespace gatescope::widgets
