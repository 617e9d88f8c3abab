// Thread safety: many threads reading tiles and factor rows through one reader (with a small
// cache, so blocks are evicted and reloaded) get exactly the single-threaded results, while
// another thread writes a second trace.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

TEST(ReaderThreads, ConcurrentReadsEqualSingleThreadedReads) {
    testing::TempDir dir;
    auto s = testing::makeSample(1300, 31);
    auto path = dir / "threads.h5";
    ASSERT_TRUE(testing::writeSample(s, path));
    auto reader = TraceReader::open(path, ReaderOptions{size_t{1} << 20});  // 4 tiles' worth
    ASSERT_TRUE(reader);
    const TraceReader& r = **reader;

    struct Request {
        int layer, level, head;
        Pool pool;
        int64_t row, col;
    };
    std::vector<Request> requests;
    for (int l = 0; l < 2; ++l)
        for (int level = s.layers[l].levels.finest; level <= s.layers[l].levels.coarsest; ++level)
            for (int h = 0; h < 3; ++h)
                for (Pool pool : {Pool::Max, Pool::Mean})
                    for (int64_t tr = 0; tr < tilesPerSide(s.n, level); ++tr)
                        for (int64_t tc = 0; tc < tilesPerSide(s.n, level); ++tc)
                            requests.push_back({l, level, h, pool, tr, tc});
    std::vector<std::vector<float>> reference;
    for (const auto& q : requests) {
        auto tile = r.pyramidTile(q.layer, "attention", q.pool, q.level, q.head, q.row, q.col);
        ASSERT_TRUE(tile);
        reference.emplace_back(tile->values(), tile->values() + kTileSide * kTileSide);
    }
    auto qFactor = r.factor(1, "q", 2, 0, s.n);
    ASSERT_TRUE(qFactor);

    std::atomic<int> failures{0};
    std::thread writer([&] {
        auto other = testing::makeSample(400, 2);
        for (int i = 0; i < 2; ++i)
            if (!testing::writeSample(other, dir / ("other" + std::to_string(i) + ".h5")))
                ++failures;
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng(t);
            std::uniform_int_distribution<size_t> pick(0, requests.size() - 1);
            std::uniform_int_distribution<int64_t> row(0, s.n);
            for (int i = 0; i < 150; ++i) {
                size_t k = pick(rng);
                const auto& q = requests[k];
                auto tile =
                    r.pyramidTile(q.layer, "attention", q.pool, q.level, q.head, q.row, q.col);
                if (!tile || !std::equal(reference[k].begin(), reference[k].end(), tile->values()))
                    ++failures;
                int64_t a = row(rng), b = row(rng);
                if (a > b) std::swap(a, b);
                auto rows = r.factor(1, "q", 2, a, b);
                if (!rows || !std::equal(rows->values.begin(), rows->values.end(),
                                         qFactor->values.begin() + a * 5))
                    ++failures;
            }
        });
    for (auto& t : threads)
        t.join();
    writer.join();
    EXPECT_EQ(failures.load(), 0);
    auto stats = r.cacheStats();
    EXPECT_LE(stats.bytes, size_t{1} << 20);
    EXPECT_GT(stats.evictions, 0u);
    EXPECT_GT(stats.hits, 0u);
}

}  // namespace
}  // namespace gatescope::data
