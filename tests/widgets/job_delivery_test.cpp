// JobPool with Qt (offscreen): results reach the GUI thread from its event loop, through a queued
// call on the pool's owner; a receiver (scope) or window (owner) destroyed before delivery gets
// nothing and nothing crashes; and the Statistics panel's jobs, run by a real session on a real
// trace, land on the GUI thread and survive the panel going mid-run.
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include <gtest/gtest.h>
#include <QCoreApplication>
#include <QObject>

#include "job_test_support.h"
#include "qt_test_app.h"
#include "support/sample_trace.h"
#include "widgets/gui/post_to_thread.h"
#include "widgets/gui/statistics_panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/job_pool.h"
#include "widgets/view/job_scope.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

/// What a window is to its jobs: the pool's owner, whose event loop delivers.
struct Owner : QObject {
    JobPool pool{2, postToThreadOf(*this)};
};

/// What a panel is: a receiver that keeps a scope on its owner's pool.
struct Receiver {
    explicit Receiver(JobPool& pool) : jobs(pool) {}
    JobScope jobs;
    int value = 0;
};

}  // namespace

TEST(JobDelivery, ResultsArriveOnTheGuiThreadFromItsEventLoop) {
    test::qtApp();
    Owner owner;
    Receiver receiver(owner.pool);
    const std::thread::id gui = std::this_thread::get_id();
    std::thread::id workedOn, deliveredOn;
    std::promise<void> worked;
    receiver.jobs.start(
        "k",
        [&](const std::atomic<bool>&) {
            workedOn = std::this_thread::get_id();
            worked.set_value();
            return Result<int>(7);
        },
        [&](Result<int> r) {
            deliveredOn = std::this_thread::get_id();
            receiver.value = *r;
        });
    // Until the GUI thread runs its event loop, a finished job is not delivered.
    ASSERT_EQ(worked.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(receiver.value, 0);
    ASSERT_TRUE(test::spinUntil([&] { return receiver.value != 0; }, 10000));
    EXPECT_EQ(receiver.value, 7);
    EXPECT_EQ(deliveredOn, gui);
    EXPECT_NE(workedOn, gui);
}

TEST(JobDelivery, AReceiverDestroyedBeforeDeliveryGetsNothing) {
    test::qtApp();
    Owner owner;
    auto receiver = std::make_unique<Receiver>(owner.pool);
    bool called = false;
    std::promise<void> started;
    auto startedFuture = started.get_future();
    std::atomic<bool> sawCancel{false};
    receiver->jobs.start(
        "k",
        [&](const std::atomic<bool>& cancelled) {
            started.set_value();
            sawCancel = test::waitForCancel(cancelled);
            return Result<int>(1);
        },
        [&, r = receiver.get()](Result<int> result) {
            called = true;
            r->value = *result;  // would write into a dead receiver
        });
    ASSERT_EQ(startedFuture.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    receiver.reset();  // while its job runs
    // The dropped result still comes back through the event loop, and is discarded there.
    ASSERT_TRUE(test::spinUntil([&] { return owner.pool.outstanding() == 0; }, 10000));
    EXPECT_TRUE(sawCancel);
    EXPECT_FALSE(called);
}

TEST(JobDelivery, AClosedWindowDropsItsQueuedResults) {
    test::qtApp();
    bool called = false;
    std::promise<void> worked;
    auto workedFuture = worked.get_future();
    {
        Owner window;
        Receiver receiver(window.pool);
        receiver.jobs.start(
            "k",
            [&](const std::atomic<bool>&) {
                worked.set_value();
                return Result<int>(1);
            },
            [&](Result<int>) { called = true; });
        ASSERT_EQ(workedFuture.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    }  // the scope, then the pool (joining its worker, whose post is queued by then), then Qt
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    EXPECT_FALSE(called);
}

TEST(JobDelivery, StatisticsPanelJobsLandOnTheGuiThreadAndSurviveThePanel) {
    test::qtApp();
    const auto path = sample::sampleTrace();
    ASSERT_FALSE(path.empty());
    auto doc = TraceDocument::open(path);
    ASSERT_TRUE(doc) << doc.error().describe();
    ViewerSession session(*doc, TileService::Options{});
    auto panel = std::make_unique<StatisticsPanel>(session);
    panel->computeAttention();  // the gate statistics of layer 0 start with it
    EXPECT_FALSE(panel->gatesDone());
    ASSERT_TRUE(test::spinUntil([&] { return panel->gatesDone(); }, 60000));
    const auto* layer = (*doc)->summary().layer(0);
    EXPECT_EQ(panel->gateRows(), static_cast<size_t>(layer->header.nHeads));  // FoX: 1 channel
    // The panel goes while the attention statistics (O(N^2) per head) run: they see their
    // cancel flag, and their result comes back to the event loop and is dropped there.
    panel.reset();
    EXPECT_TRUE(test::spinUntil([&] { return session.jobs().outstanding() == 0; }, 60000));
}
