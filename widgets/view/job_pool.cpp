#include "widgets/view/job_pool.h"

#include <algorithm>

namespace gatescope::widgets {

JobPool::JobPool(int maxThreads, Post post)
    : m_maxThreads(static_cast<size_t>(std::max(1, maxThreads))), m_post(std::move(post)) {}

JobPool::~JobPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_queue.clear();
        for (auto& [key, job] : m_current)
            job->cancelled = true;
        m_current.clear();
    }
    m_wake.notify_all();
    for (std::thread& thread : m_threads)
        thread.join();
    m_alive.reset();  // after the join: workers read it until they stop
}

size_t JobPool::outstanding() const {
    std::lock_guard lock(m_mutex);
    return m_queue.size() + m_running + m_undelivered;
}

size_t JobPool::threadCount() const {
    std::lock_guard lock(m_mutex);
    return m_threads.size();
}

uint64_t JobPool::newScopeId() {
    std::lock_guard lock(m_mutex);
    return m_nextScope++;
}

void JobPool::submit(Key key, Task task) {
    {
        std::lock_guard lock(m_mutex);
        if (auto current = m_current.find(key); current != m_current.end()) cancelLocked(current);
        auto job = std::make_shared<Job>();
        job->key = key;
        job->task = std::move(task);
        m_current.emplace(std::move(key), job);
        m_queue.push_back(std::move(job));
        if (m_queue.size() > m_idle && m_threads.size() < m_maxThreads)
            m_threads.emplace_back([this] { work(); });
    }
    m_wake.notify_one();
}

void JobPool::cancel(const Key& key) {
    std::lock_guard lock(m_mutex);
    if (auto current = m_current.find(key); current != m_current.end()) cancelLocked(current);
}

void JobPool::cancelScope(uint64_t scope) {
    std::lock_guard lock(m_mutex);
    auto it = m_current.lower_bound(Key{scope, {}});
    while (it != m_current.end() && it->first.first == scope)
        cancelLocked(it++);
}

bool JobPool::busy(const Key& key) const {
    std::lock_guard lock(m_mutex);
    return m_current.count(key) > 0;
}

void JobPool::cancelLocked(std::map<Key, std::shared_ptr<Job>>::iterator current) {
    const std::shared_ptr<Job> job = current->second;
    job->cancelled = true;
    // A job that has not started never will; a running one finishes, and its result is dropped
    // because it is no longer the current job of its key.
    m_queue.erase(std::remove(m_queue.begin(), m_queue.end(), job), m_queue.end());
    m_current.erase(current);
}

void JobPool::work() {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock lock(m_mutex);
            ++m_idle;
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            --m_idle;
            if (m_stop) return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
            ++m_running;
        }
        std::function<void()> delivery;
        try {
            delivery = job->task(job->cancelled);
        } catch (...) {
            // JobScope's tasks catch what the work throws; this is only a bad_alloc on the way.
            // The job is then dropped at delivery, like a cancelled one.
        }
        {
            std::lock_guard lock(m_mutex);
            --m_running;
            ++m_undelivered;
        }
        m_post([this, alive = std::weak_ptr<bool>(m_alive), job = std::move(job),
                delivery = std::move(delivery)] {
            if (alive.expired()) return;  // the pool is gone
            deliver(*job, delivery);
        });
    }
}

void JobPool::deliver(const Job& job, const std::function<void()>& delivery) {
    {
        std::lock_guard lock(m_mutex);
        --m_undelivered;
        const auto current = m_current.find(job.key);
        if (current == m_current.end() || current->second.get() != &job) return;  // stale
        m_current.erase(current);
    }
    if (delivery) delivery();
}

}  // namespace gatescope::widgets
