#include "kernels/cpu/parallel_for.h"

#include "kernels/cpu/cancel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gatescope::kernels {

int resolveThreads(int threads) {
    if (threads > 0) return std::min(threads, kMaxWorkerThreads);
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? static_cast<int>(hardware) : 1;
}

void parallelFor(int64_t begin, int64_t end, int64_t grain,
                 const std::function<void(int64_t, int64_t)>& fn, int threads) {
    if (end <= begin) return;
    grain = std::max<int64_t>(grain, 1);
    const int64_t chunks = (end - begin + grain - 1) / grain;
    const int workers = static_cast<int>(std::min<int64_t>(resolveThreads(threads), chunks));
    if (workers <= 1) {
        for (int64_t b = begin; b < end; b += grain)
            fn(b, std::min(b + grain, end));
        return;
    }

    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr firstError;
    std::mutex errorMutex;
    const std::function<bool()>* cancelTest = currentCancelTest();
    auto work = [&] {
        const AdoptCancel adopt(cancelTest);  // the caller's cancellation reaches the workers
        while (!failed.load(std::memory_order_relaxed)) {
            const int64_t chunk = next.fetch_add(1, std::memory_order_relaxed);
            if (chunk >= chunks) return;
            const int64_t b = begin + chunk * grain;
            try {
                fn(b, std::min(b + grain, end));
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!firstError) firstError = std::current_exception();
                failed.store(true, std::memory_order_relaxed);
            }
        }
    };

    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (int w = 1; w < workers; ++w) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break;  // out of threads: the workers we have (at least this one) finish the range
        }
    }
    work();
    for (auto& thread : pool)
        thread.join();
    if (firstError) std::rethrow_exception(firstError);
}

void parallelFor(int64_t count, int threads, const std::function<void(int64_t)>& fn) {
    parallelFor(
        0, count, 1,
        [&fn](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i)
                fn(i);
        },
        threads);
}

}  // namespace gatescope::kernels
