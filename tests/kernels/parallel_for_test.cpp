#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/cpu/parallel_for.h"

namespace gatescope {
namespace {

TEST(ParallelFor, CoversTheRangeOnceInChunksOfAtMostGrain) {
    for (int threads : {1, 2, 4, 0}) {
        for (int64_t grain : {0, 1, 3, 7, 1000}) {
            const int64_t begin = -5, end = 101;
            std::vector<std::atomic<int>> hits(end - begin);
            std::mutex mutex;
            std::vector<std::pair<int64_t, int64_t>> chunks;
            kernels::parallelFor(
                begin, end, grain,
                [&](int64_t b, int64_t e) {
                    {
                        std::lock_guard<std::mutex> lock(mutex);
                        chunks.emplace_back(b, e);
                    }
                    for (int64_t i = b; i < e; ++i)
                        hits[i - begin].fetch_add(1);
                },
                threads);
            for (const auto& hit : hits)
                EXPECT_EQ(hit.load(), 1);
            for (auto [b, e] : chunks) {
                EXPECT_LT(b, e);
                EXPECT_LE(e - b, std::max<int64_t>(grain, 1));
            }
        }
    }
}

TEST(ParallelFor, UsesSeveralThreadsWhenAsked) {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    std::atomic<int> arrived{0};
    kernels::parallelFor(
        0, 2, 1,
        [&](int64_t, int64_t) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                ids.insert(std::this_thread::get_id());
            }
            // Both chunks wait for each other (only possible on two threads); the deadline turns
            // a missing second worker into a failure instead of a hang.
            arrived.fetch_add(1);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline)
                std::this_thread::yield();
        },
        2);
    EXPECT_EQ(ids.size(), 2u);
}

TEST(ParallelFor, EmptyRangeCallsNothing) {
    int calls = 0;
    kernels::parallelFor(
        10, 10, 1, [&](int64_t, int64_t) { ++calls; }, 4);
    kernels::parallelFor(
        10, 3, 1, [&](int64_t, int64_t) { ++calls; }, 4);
    kernels::parallelFor(0, 4, [&](int64_t) { ++calls; });
    EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, PerItemConvenienceVisitsEveryIndex) {
    std::vector<std::atomic<int>> hits(37);
    kernels::parallelFor(37, 3, [&](int64_t i) { hits[i].fetch_add(1); });
    for (const auto& hit : hits)
        EXPECT_EQ(hit.load(), 1);
}

TEST(ParallelFor, RethrowsTheFirstExceptionAfterJoining) {
    std::atomic<int> finished{0};
    EXPECT_THROW(kernels::parallelFor(
                     0, 50, 1,
                     [&](int64_t b, int64_t) {
                         if (b == 3) throw std::runtime_error("chunk 3 failed");
                         finished.fetch_add(1);
                     },
                     3),
                 std::runtime_error);
    EXPECT_LT(finished.load(), 50);
}

TEST(ParallelFor, ResolvesZeroThreadsToTheHardware) {
    EXPECT_GE(kernels::resolveThreads(0), 1);
    EXPECT_EQ(kernels::resolveThreads(3), 3);
}

}  // namespace
}  // namespace gatescope
