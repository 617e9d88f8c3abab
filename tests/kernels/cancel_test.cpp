// kernels/cpu/cancel.h: a job's cancellation reaches the blockwise forwards on every worker,
// within a few key blocks, and nothing changes for callers that install no scope.
#include <atomic>
#include <chrono>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/cancel.h"
#include "kernels/cpu/parallel_for.h"

namespace gatescope::kernels {
namespace {

struct Heads {
    int64_t n;
    int count = 4, dk = 16;
    std::vector<float> q, k, v, out, lse;
    std::vector<AdditiveDecayHead> views;
    std::vector<float*> outs, lses;
    explicit Heads(int64_t n_) : n(n_) {
        q.assign(n * dk, 0.01f), k.assign(n * dk, 0.02f), v.assign(n * dk, 1.0f);
        out.assign(count * n * dk, 0.0f), lse.assign(count * n, 0.0f);
        for (int h = 0; h < count; ++h) {
            AdditiveDecayHead view;
            view.n = n, view.dk = dk, view.dv = dk;
            view.q = q.data(), view.k = k.data(), view.v = v.data();
            view.scale = 0.25f;
            views.push_back(view);
            outs.push_back(out.data() + h * n * dk);
            lses.push_back(lse.data() + h * n);
        }
    }
    void run(int threads) {
        attentionForwardHeads(views.data(), count, outs.data(), lses.data(), {}, threads);
    }
};

TEST(Cancel, NoScopeRunsToTheEnd) {
    EXPECT_FALSE(cancelRequested());
    EXPECT_NO_THROW(throwIfCancelled());
    Heads heads(300);
    EXPECT_NO_THROW(heads.run(2));
    EXPECT_NEAR(heads.out[0], 1.0f, 1e-6f);
}

TEST(Cancel, ReachesEveryWorkerWithinAFewKeyBlocks) {
    // 8192 tokens x 4 heads: 64 query blocks of up to 64 key blocks per head.
    Heads heads(8192);
    std::atomic<int> polls{0};
    std::atomic<bool> stop{false};
    const std::function<bool()> test = [&] {
        if (++polls == 20) stop = true;  // a Ctrl-C arriving mid-kernel
        return stop.load();
    };
    const CancelScope scope(test);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(heads.run(3), Cancelled);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    // Each worker polls once more at most before it sees the flag and stops.
    EXPECT_LE(polls.load(), 20 + 3);
}

TEST(Cancel, ScopesNestAndParallelForHandsThemToWorkers) {
    const std::function<bool()> yes = [] { return true; };
    const std::function<bool()> none;
    {
        const CancelScope outer(yes);
        EXPECT_TRUE(cancelRequested());
        {
            const CancelScope empty(none);  // an empty test leaves the outer one in force
            EXPECT_TRUE(cancelRequested());
        }
        std::atomic<int> seen{0};
        parallelFor(8, 4, [&](int64_t) { seen += cancelRequested() ? 1 : 0; });
        EXPECT_EQ(seen.load(), 8);
        EXPECT_THROW(parallelFor(8, 4, [&](int64_t) { throwIfCancelled(); }), Cancelled);
    }
    EXPECT_FALSE(cancelRequested());
}

TEST(Cancel, ThreadRequestsAreCapped) {
    EXPECT_EQ(resolveThreads(100000), kMaxWorkerThreads);
    EXPECT_EQ(resolveThreads(3), 3);
    EXPECT_GE(resolveThreads(0), 1);
}

}  // namespace
}  // namespace gatescope::kernels
