// JobPool: the viewer's home for background work other than tile loads (TileScheduler) and the
// trace job of File > Run Model (TraceJobRunner): opening traces and needle grids, statistics,
// retention, compare summaries, divergences. A bounded pool of worker threads, started as jobs
// come and joined at destruction. Jobs are started, superseded and cancelled through a JobScope
// (job_scope.h), which keys them per receiver; a finished job's result is handed back on the
// delivering thread (the GUI's) through the `post` function given at construction, and only if
// its job is still the latest of its key and its scope still exists. Display-free: the Qt side
// is `post` (widgets/gui/post_to_thread.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gatescope::widgets {

class JobPool {
public:
    /// Hands `call` to the delivering thread, to run there later (e.g. a queued Qt call).
    using Post = std::function<void(std::function<void()> call)>;

    /// At most `maxThreads` workers (at least 1), each started when a job finds no idle one.
    /// `post` is called on worker threads, up to the end of the destructor; a call it posts
    /// that runs after the pool is gone does nothing.
    JobPool(int maxThreads, Post post);
    /// Cancels every job (running ones see their cancel flag), drops the queued ones and joins
    /// the workers, waiting for running work that does not poll its flag. Nothing is delivered
    /// afterwards. Call on the delivering thread, after every JobScope of this pool is gone.
    ~JobPool();

    JobPool(const JobPool&) = delete;
    JobPool& operator=(const JobPool&) = delete;

    /// Jobs queued, running, or finished whose posted call has not run yet. Any thread.
    size_t outstanding() const;
    /// Worker threads started so far (never more than maxThreads). Any thread.
    size_t threadCount() const;

private:
    friend class JobScope;

    /// Runs on a worker with the job's cancel flag; returns what to run on the delivering
    /// thread if the job is still current then. Must not throw (JobScope catches for it).
    using Task = std::function<std::function<void()>(const std::atomic<bool>& cancelled)>;
    using Key = std::pair<uint64_t, std::string>;  // scope id, key within the scope
    struct Job {
        Key key;
        Task task;
        std::atomic<bool> cancelled{false};
    };

    uint64_t newScopeId();
    /// Makes `task` the current job of `key`, cancelling (and unqueueing) the previous one.
    void submit(Key key, Task task);
    /// Cancels the current job of `key`; its result will not be delivered.
    void cancel(const Key& key);
    /// cancel() for every key of scope `scope`.
    void cancelScope(uint64_t scope);
    /// Whether `key` has a current job (queued, running, or finished and not yet delivered).
    bool busy(const Key& key) const;

    void cancelLocked(std::map<Key, std::shared_ptr<Job>>::iterator current);
    void work();
    /// Delivering thread: runs `delivery` if `job` is still the current job of its key.
    void deliver(const Job& job, const std::function<void()>& delivery);

    const size_t m_maxThreads;
    const Post m_post;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<Job>> m_queue;
    std::map<Key, std::shared_ptr<Job>> m_current;  // the latest job of each key
    size_t m_running = 0;
    size_t m_undelivered = 0;
    size_t m_idle = 0;
    uint64_t m_nextScope = 1;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);  // posted calls hold it weakly
};

}  // namespace gatescope::widgets
