// JobPool and JobScope without Qt: the test thread is the delivering thread, and a recording
// `post` lets it choose when deliveries run, so each rule is checked at a known moment: a
// superseded, cancelled or orphaned result is never delivered, exceptions become errors, the
// pool stays within its thread bound and joins what runs when it goes.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "job_test_support.h"
#include "widgets/view/job_pool.h"
#include "widgets/view/job_scope.h"

using namespace gatescope;
using namespace gatescope::widgets;
using test::waitForCancel;

namespace {

/// Work returning `value` at once.
auto valueJob(int value) {
    return [value](const std::atomic<bool>&) { return Result<int>(value); };
}

bool ready(std::future<void>& future) {
    return future.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
}

/// A pool of 2 workers delivering on the test thread, one scope on it, and what it delivered.
class Jobs : public ::testing::Test {
protected:
    test::RecordingPost posts;
    JobPool pool{2, posts.post()};
    JobScope scope{pool};
    std::vector<int> delivered;  // values, -1 for an error
    std::function<void(Result<int>)> record = [this](Result<int> r) {
        delivered.push_back(r ? *r : -1);
    };
};

}  // namespace

TEST_F(Jobs, ANewerJobForTheSameKeyDropsTheFinishedOlderResult) {
    scope.start("k", valueJob(1), record);
    ASSERT_TRUE(posts.waitFor(1));  // job 1 is done, its result waits for the delivering thread
    scope.start("k", valueJob(2), record);
    ASSERT_TRUE(posts.waitFor(2));
    posts.runAll();
    EXPECT_EQ(delivered, std::vector<int>{2});
    EXPECT_FALSE(scope.busy("k"));
    EXPECT_EQ(pool.outstanding(), 0u);
}

TEST_F(Jobs, ASupersededRunningJobSeesItsCancelFlagAndIsNotDelivered) {
    std::promise<void> started;
    auto startedFuture = started.get_future();
    std::atomic<bool> sawCancel{false};
    scope.start(
        "k",
        [&](const std::atomic<bool>& cancelled) {
            started.set_value();
            sawCancel = waitForCancel(cancelled);
            return Result<int>(1);  // a value, not an error: only the stale rule can drop it
        },
        record);
    ASSERT_TRUE(ready(startedFuture));
    scope.start("k", valueJob(2), record);
    ASSERT_TRUE(posts.waitFor(2));
    posts.runAll();
    EXPECT_TRUE(sawCancel);
    EXPECT_EQ(delivered, std::vector<int>{2});
}

TEST_F(Jobs, KeysAndScopesAreIndependent) {
    JobScope other(pool);
    scope.start("k", valueJob(1), record);
    other.start("k", valueJob(2), record);
    scope.start("other", valueJob(3), record);
    ASSERT_TRUE(posts.waitFor(3));
    posts.runAll();
    std::sort(delivered.begin(), delivered.end());
    EXPECT_EQ(delivered, (std::vector<int>{1, 2, 3}));
}

TEST_F(Jobs, WhatTheWorkThrowsArrivesAsAnError) {
    std::optional<Result<int>> fromStd, fromOther;
    scope.start(
        "std", [](const std::atomic<bool>&) -> Result<int> { throw std::runtime_error("boom"); },
        [&](Result<int> r) { fromStd = std::move(r); });
    scope.start(
        "other", [](const std::atomic<bool>&) -> Result<int> { throw 42; },
        [&](Result<int> r) { fromOther = std::move(r); });
    ASSERT_TRUE(posts.waitFor(2));
    posts.runAll();
    ASSERT_TRUE(fromStd && fromOther);
    ASSERT_FALSE(*fromStd);
    EXPECT_EQ(fromStd->error().kind, ErrorKind::Internal);
    EXPECT_EQ(fromStd->error().describe(), "background job 'std' failed: boom");
    ASSERT_FALSE(*fromOther);
    EXPECT_EQ(fromOther->error().describe(), "background job 'other' failed: unknown error");
}

TEST_F(Jobs, CancelledKeysAndDestroyedScopesGetNothing) {
    auto gone = std::make_unique<JobScope>(pool);
    std::promise<void> started;
    auto startedFuture = started.get_future();
    std::atomic<bool> sawCancel{false};
    gone->start(
        "running",
        [&](const std::atomic<bool>& cancelled) {
            started.set_value();
            sawCancel = waitForCancel(cancelled);
            return Result<int>(1);
        },
        record);
    scope.start("cancelled", valueJob(2), record);
    ASSERT_TRUE(posts.waitFor(1));  // "cancelled" is done, not delivered yet
    scope.cancel("cancelled");
    EXPECT_FALSE(scope.busy("cancelled"));
    ASSERT_TRUE(ready(startedFuture));
    gone.reset();  // the receiver goes while its job runs
    ASSERT_TRUE(posts.waitFor(2));
    posts.runAll();
    EXPECT_TRUE(sawCancel);
    EXPECT_TRUE(delivered.empty());
    EXPECT_EQ(pool.outstanding(), 0u);
}

TEST_F(Jobs, StayWithinTheThreadBound) {
    std::promise<void> open;
    std::shared_future<void> gate = open.get_future().share();
    std::mutex mutex;
    int running = 0, most = 0;
    for (int i = 0; i < 5; ++i) {
        scope.start(
            "job" + std::to_string(i),
            [&, gate, i](const std::atomic<bool>&) {
                {
                    std::lock_guard lock(mutex);
                    most = std::max(most, ++running);
                }
                gate.wait();
                std::lock_guard lock(mutex);
                --running;
                return Result<int>(i);
            },
            record);
    }
    EXPECT_EQ(pool.threadCount(), 2u);
    open.set_value();
    ASSERT_TRUE(posts.waitFor(5));
    posts.runAll();
    EXPECT_EQ(delivered.size(), 5u);
    EXPECT_LE(most, 2);
    EXPECT_EQ(pool.threadCount(), 2u);
}

TEST(JobPool, DestructionJoinsRunningWorkAndDeliversNothingAfterwards) {
    test::RecordingPost posts;
    std::atomic<bool> finished{false}, queuedRan{false};
    bool called = false;
    std::promise<void> release, started;
    auto startedFuture = started.get_future();
    std::thread releaser;
    {
        JobPool pool(1, posts.post());
        {
            JobScope scope(pool);
            scope.start(
                "ignores-cancel",
                [&, done = release.get_future().share()](const std::atomic<bool>&) {
                    started.set_value();
                    done.wait();  // does not poll its flag: the pool must wait for it
                    finished = true;
                    return Result<int>(1);
                },
                [&](Result<int>) { called = true; });
            scope.start(
                "queued",
                [&](const std::atomic<bool>&) {
                    queuedRan = true;
                    return Result<int>(2);
                },
                [&](Result<int>) { called = true; });
            if (!ready(startedFuture)) {
                release.set_value();  // let the pool go
                FAIL() << "the job did not start";
            }
        }
        // Released from another thread while the destructor below is (most likely) joining; the
        // check after it holds whenever the release comes.
        releaser = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            release.set_value();
        });
    }
    EXPECT_TRUE(finished);  // ~JobPool returned only after the running work did
    releaser.join();
    EXPECT_FALSE(queuedRan);
    posts.runAll();  // calls posted by the dead pool do nothing
    EXPECT_FALSE(called);
}
