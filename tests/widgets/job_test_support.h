// Helpers for the JobPool tests: a `post` that records calls for the test thread to run when it
// chooses, and the polling loop of cooperative work that stops when cancelled.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "widgets/view/job_pool.h"

namespace gatescope::test {

/// Records what a JobPool posts; the test thread runs it with runAll(). Must outlive the pool.
class RecordingPost {
public:
    widgets::JobPool::Post post() {
        return [this](std::function<void()> call) {
            std::lock_guard lock(m_mutex);
            m_calls.push_back(std::move(call));
            ++m_posted;
            m_changed.notify_all();
        };
    }
    /// Waits (10 s at most) until `n` calls have been posted in all; false on time-out.
    bool waitFor(size_t n) {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::seconds(10), [&] { return m_posted >= n; });
    }
    /// Runs the calls posted so far, oldest first, on the calling thread.
    void runAll() {
        std::vector<std::function<void()>> calls;
        {
            std::lock_guard lock(m_mutex);
            calls.swap(m_calls);
        }
        for (auto& call : calls)
            call();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::function<void()>> m_calls;
    size_t m_posted = 0;
};

/// What cooperative work does: polls its flag until set (10 s at most); whether it was set.
inline bool waitForCancel(const std::atomic<bool>& cancelled) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cancelled && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return cancelled;
}

}  // namespace gatescope::test
