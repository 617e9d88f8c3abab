// JobScope: one receiver's handle on a JobPool (a panel's, the main window's). It starts jobs
// under keys of its own ("gates", "retention"): a new job under a key supersedes the key's
// previous one, whose cancel flag is set and whose result is never delivered. Work returns a
// Result<T>; anything it throws becomes an Error of that Result. The result is handed to the
// job's callback on the delivering thread, and only while the scope exists: destroying the
// scope cancels its jobs, so a callback may capture the receiver that owns the scope.
// Delivering (GUI) thread only.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "data/common/result.h"
#include "widgets/view/job_pool.h"

namespace gatescope::widgets {

/// What a job's work returns: a Result<T>.
template <class Work>
using JobResult = std::invoke_result_t<Work&, const std::atomic<bool>&>;

namespace detail {
/// `work(cancelled)`, with an exception turned into an Error naming the job's key.
template <class Work>
JobResult<Work> runCatching(Work& work, const std::atomic<bool>& cancelled,
                            const std::string& key) {
    try {
        return work(cancelled);
    } catch (const std::exception& e) {
        return Error{
            ErrorKind::Internal, "background job '" + key + "' failed: " + e.what(), {}, {}};
    } catch (...) {
        return Error{
            ErrorKind::Internal, "background job '" + key + "' failed: unknown error", {}, {}};
    }
}
}  // namespace detail

class JobScope {
public:
    /// `pool` must outlive the scope.
    explicit JobScope(JobPool& pool) : m_pool(pool), m_id(pool.newScopeId()) {}
    /// Cancels the scope's jobs: none of their callbacks runs afterwards. Running work goes on
    /// until it returns or sees its cancel flag; the pool joins it.
    ~JobScope() { m_pool.cancelScope(m_id); }

    JobScope(const JobScope&) = delete;
    JobScope& operator=(const JobScope&) = delete;

    /// Runs `work(cancelled)` on a worker, then `onResult(result)` on the delivering thread,
    /// unless a newer job under `key` was started, cancel(key) was called or the scope is gone
    /// by then. `work` owns (captures) what it reads and should poll `cancelled` where it can;
    /// it returns a Result<T>, and whatever it throws is delivered as an Error (Internal).
    template <class Work>
    void start(std::string key, Work work, std::function<void(JobResult<Work>)> onResult) {
        using R = JobResult<Work>;
        JobPool::Task task = [key, work = std::move(work), onResult = std::move(onResult)](
                                 const std::atomic<bool>& cancelled) mutable {
            auto result = std::make_shared<R>(detail::runCatching(work, cancelled, key));
            return std::function<void()>(
                [onResult = std::move(onResult), result] { onResult(std::move(*result)); });
        };
        m_pool.submit({m_id, std::move(key)}, std::move(task));
    }

    /// Cancels the job under `key`, if any: its callback will not run.
    void cancel(const std::string& key) { m_pool.cancel({m_id, key}); }
    /// Whether a job under `key` is queued, running, or done with its callback still to run.
    bool busy(const std::string& key) const { return m_pool.busy({m_id, key}); }

private:
    JobPool& m_pool;
    const uint64_t m_id;
};

}  // namespace gatescope::widgets
