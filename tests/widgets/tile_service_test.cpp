// Tile cache (bounded LRU), scheduler (workers, stale requests replaced) and service.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "widgets/view/tile_service.h"

using namespace gatescope;
using namespace gatescope::widgets;

namespace {

TileKey key(int64_t row, int64_t col) {
    TileKey k;
    k.row = row;
    k.col = col;
    return k;
}

TilePtr tile(const TileKey& k, float fill) {
    auto t = std::make_shared<TileData>();
    t->key = k;
    t->rows = t->cols = kTile;
    t->values.assign(static_cast<size_t>(kTile * kTile), fill);
    computeTileStats(*t);
    return t;
}

bool waitUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 2000 && !done(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return done();
}

}  // namespace

TEST(TileCache, EvictsLeastRecentlyUsedBeyondTheByteBound) {
    const size_t one = tile(key(0, 0), 0)->bytes();
    TileCache cache(3 * one);
    for (int i = 0; i < 3; ++i)
        cache.put(tile(key(i, 0), float(i)));
    ASSERT_TRUE(cache.find(key(0, 0)));  // 0 becomes most recent; 1 is now the oldest
    cache.put(tile(key(3, 0), 3));
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_LE(cache.bytes(), 3 * one);
    EXPECT_FALSE(cache.contains(key(1, 0)));
    EXPECT_TRUE(cache.contains(key(0, 0)));
    EXPECT_EQ(cache.evictions(), 1u);
    EXPECT_EQ(cache.find(key(3, 0))->max, 3.f);
}

TEST(TileScheduler, NewRequestsReplaceStalePendingKeys) {
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> started{0};
    std::vector<TileKey> loaded;
    auto loader = [&](const TileKey& k) -> Result<TilePtr> {
        ++started;
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return release; });
        loaded.push_back(k);
        return tile(k, 1);
    };
    TileScheduler scheduler(loader, 1, nullptr);
    scheduler.request(0, {key(0, 0), key(1, 0), key(1, 1)});
    ASSERT_TRUE(waitUntil([&] { return started == 1 && scheduler.outstanding() == 3; }));
    // The worker is blocked on (0, 0); the other two are pending and get replaced.
    scheduler.request(0, {key(5, 5), key(0, 0)});
    {
        std::lock_guard lock(m);
        release = true;
    }
    cv.notify_all();
    ASSERT_TRUE(waitUntil([&] { return scheduler.outstanding() == 0; }));
    std::vector<CompletedTile> done = scheduler.takeCompleted();
    ASSERT_EQ(done.size(), 2u);  // (0, 0) once, then (5, 5); never the stale ones
    std::lock_guard lock(m);
    ASSERT_EQ(loaded.size(), 2u);
    EXPECT_EQ(loaded[0], key(0, 0));
    EXPECT_EQ(loaded[1], key(5, 5));
    for (const auto& d : done) {
        EXPECT_TRUE(d.result.ok());
        EXPECT_GE(d.latencySeconds, 0);
    }
}

TEST(TileService, LoadsOnWorkersNotifiesAndCachesBoundedly) {
    std::atomic<int> notified{0};
    std::atomic<int> calls{0};
    auto loader = [&](const TileKey& k) -> Result<TilePtr> {
        ++calls;
        if (k.row == 99) return Error{ErrorKind::Missing, "no such tile", {}, {}};
        return tile(k, static_cast<float>(k.row));
    };
    const size_t one = tile(key(0, 0), 0)->bytes();
    TileService service(loader, {8 * one, 3}, [&] { ++notified; });
    std::vector<TileKey> wanted;
    for (int r = 0; r < 20; ++r)
        wanted.push_back(key(r, 0));
    wanted.push_back(key(99, 0));
    service.request(0, wanted);
    int arrived = 0;
    ASSERT_TRUE(waitUntil([&] {
        arrived += service.pump();
        return arrived == 21;
    }));
    EXPECT_EQ(notified.load(), 21);
    EXPECT_LE(service.cache().bytes(), 8 * one);
    EXPECT_EQ(service.cache().size(), 8u);
    ASSERT_TRUE(service.lastError());
    EXPECT_NE(service.lastError()->find("no such tile"), std::string::npos);
    // Cached and failed keys are not requested again.
    const int before = calls.load();
    service.request(0, {key(19, 0), key(99, 0)});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(calls.load(), before);
    EXPECT_EQ(service.latencies().size(), 21u);
}
