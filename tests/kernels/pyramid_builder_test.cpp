// buildPyramid against densePool (brute force over the dense map), with a synthetic source that
// isolates the pooling logic and with real attention tiles.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "additive_head.h"
#include "dense_reference.h"
#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/tile_recompute.h"
#include "kernels/reference/dense_pool.h"

namespace gatescope {
namespace {

using kernels::kPyramidTile;
using kernels::MapKind;
using kernels::Pool;

// A map with a known value everywhere: a hash of (i, j) in (0, 1] on the allowed band, 0 off it.
class HashSource final : public kernels::TileSource {
public:
    HashSource(int64_t n, int64_t window) : m_n(n), m_window(window) {}
    int64_t size() const override { return m_n; }
    bool hasMap(MapKind kind) const override { return kind == MapKind::Attention; }
    int64_t window() const override { return m_window; }
    void compute(MapKind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
                out[r * cols + c] = value(row0 + r, col0 + c);
        computed.fetch_add(1);
    }
    float value(int64_t i, int64_t j) const {
        if (i < 0 || j < 0 || i >= m_n || j >= m_n || j > i) return 0.0f;
        if (m_window > 0 && j < i - m_window + 1) return 0.0f;
        uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(j);
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        return static_cast<float>((h % 1000000) + 1) * 1e-6f;
    }
    std::vector<double> dense() const {
        std::vector<double> d(m_n * m_n);
        for (int64_t i = 0; i < m_n; ++i)
            for (int64_t j = 0; j < m_n; ++j)
                d[i * m_n + j] = value(i, j);
        return d;
    }
    mutable std::atomic<int> computed{0};

private:
    int64_t m_n, m_window;
};

using TileKey = std::tuple<int, Pool, int64_t, int64_t>;
using Tiles = std::map<TileKey, std::vector<float>>;

kernels::PyramidCallbacks collect(Tiles& tiles) {
    kernels::PyramidCallbacks cb;
    cb.onTile = [&tiles](int level, Pool pool, int64_t tr, int64_t tc, const float* tile) {
        const TileKey key{level, pool, tr, tc};
        ASSERT_EQ(tiles.count(key), 0u) << "tile delivered twice";
        ASSERT_LE(tc, tr) << "non-causal tile delivered";
        tiles[key].assign(tile, tile + kPyramidTile * kPyramidTile);
    };
    return cb;
}

// Every level in range: exactly the causal tiles, equal to densePool, zero past S.
void expectPyramid(const Tiles& tiles, const std::vector<double>& dense, int64_t n, int finest,
                   int coarsest, double tolerance) {
    size_t expectedTiles = 0;
    for (int level = finest; level <= coarsest; ++level) {
        const int64_t side = kernels::pyramidSide(n, level);
        const int64_t perSide = (side + kPyramidTile - 1) / kPyramidTile;
        expectedTiles += 2 * perSide * (perSide + 1) / 2;
        for (Pool pool : {Pool::Max, Pool::Mean}) {
            const auto ref = kernels::densePool(dense, n, level, pool);
            for (int64_t tr = 0; tr < perSide; ++tr) {
                for (int64_t tc = 0; tc <= tr; ++tc) {
                    const auto it = tiles.find({level, pool, tr, tc});
                    ASSERT_NE(it, tiles.end())
                        << "missing tile " << level << " " << tr << " " << tc;
                    for (int64_t y = 0; y < kPyramidTile; ++y) {
                        for (int64_t x = 0; x < kPyramidTile; ++x) {
                            const int64_t r = tr * kPyramidTile + y, c = tc * kPyramidTile + x;
                            const double want = r < side && c < side ? ref[r * side + c] : 0.0;
                            ASSERT_NEAR(it->second[y * kPyramidTile + x], want,
                                        tolerance * std::max(1.0, std::abs(want)))
                                << "level " << level << (pool == Pool::Max ? " max" : " mean")
                                << " cell (" << r << ", " << c << ")";
                        }
                    }
                }
            }
        }
    }
    EXPECT_EQ(tiles.size(), expectedTiles);
}

TEST(PyramidBuilder, PoolsMatchBruteForceOnASyntheticMap) {
    const std::pair<int, int> ranges[] = {{0, 0}, {0, 3}, {2, 5}, {1, 11}, {8, 9}, {9, 10}};
    for (int64_t n : {1, 100, 257, 600}) {
        for (int64_t window : {0, 1, 37}) {
            const HashSource source(n, window);
            const auto dense = source.dense();
            for (auto [finest, coarsest] : ranges) {
                for (int threads : {1, 3}) {
                    SCOPED_TRACE("n " + std::to_string(n) + " window " + std::to_string(window) +
                                 " levels " + std::to_string(finest) + ".." +
                                 std::to_string(coarsest) + " threads " + std::to_string(threads));
                    Tiles tiles;
                    kernels::PyramidRequest request;
                    request.finestLevel = finest;
                    request.coarsestLevel = coarsest;
                    request.threads = threads;
                    ASSERT_TRUE(kernels::buildPyramid(source, request, collect(tiles)));
                    expectPyramid(tiles, dense, n, finest, coarsest, 1e-6);
                }
            }
        }
    }
}

TEST(PyramidBuilder, SkipsTilesOutsideTheWindowBand) {
    const int64_t n = 2000, window = 100;
    const HashSource source(n, window);
    Tiles tiles;
    kernels::PyramidRequest request;
    request.finestLevel = 3;
    request.coarsestLevel = 3;
    ASSERT_TRUE(kernels::buildPyramid(source, request, collect(tiles)));
    // 8 tile rows; a 100-token band touches the diagonal tile and at most one to its left.
    EXPECT_LE(source.computed.load(), 8 + 7);
    expectPyramid(tiles, source.dense(), n, 3, 3, 1e-6);
}

TEST(PyramidBuilder, AttentionPyramidMatchesDensePoolOfTheExactMap) {
    for (int64_t window : {0, 50}) {
        test::additive::HeadSpec spec;
        spec.n = 600;
        spec.dk = 32;
        spec.dv = 8;
        spec.window = window;
        spec.qScale = 2.0f;
        test::additive::RandomHead head(spec);
        head.lse.resize(spec.n);
        std::vector<float> out(spec.n * spec.dv);
        kernels::attentionForward(head.view(), out.data(), head.lse.data());
        const auto dense = test::additive::denseMaps(head.view());
        const kernels::AdditiveDecayTileSource source(head.view());
        for (MapKind kind : {MapKind::Attention, MapKind::Decay}) {
            Tiles tiles;
            kernels::PyramidRequest request;
            request.kind = kind;
            request.finestLevel = 1;
            request.coarsestLevel = 6;
            request.threads = 2;
            ASSERT_TRUE(kernels::buildPyramid(source, request, collect(tiles)));
            expectPyramid(tiles, kind == MapKind::Attention ? dense.attention : dense.decay, spec.n,
                          1, 6, 2e-6);
        }
    }
}

TEST(PyramidBuilder, ThreadCountDoesNotChangeTheBits) {
    const HashSource source(1500, 0);
    Tiles one, many;
    kernels::PyramidRequest request;
    request.finestLevel = 2;
    request.coarsestLevel = 4;
    request.threads = 1;
    ASSERT_TRUE(kernels::buildPyramid(source, request, collect(one)));
    request.threads = 4;
    ASSERT_TRUE(kernels::buildPyramid(source, request, collect(many)));
    ASSERT_EQ(one.size(), many.size());
    for (const auto& [key, tile] : one)
        EXPECT_EQ(0, std::memcmp(tile.data(), many.at(key).data(), tile.size() * sizeof(float)));
}

TEST(PyramidBuilder, RejectsBadRequestsWithClearErrors) {
    const HashSource source(1000, 0);
    Tiles tiles;
    auto build = [&](kernels::PyramidRequest request, kernels::PyramidCallbacks cb) {
        return kernels::buildPyramid(source, request, cb);
    };
    kernels::PyramidRequest good;
    good.finestLevel = 2;
    good.coarsestLevel = 4;

    auto noCallback = build(good, {});
    ASSERT_FALSE(noCallback);
    EXPECT_EQ(noCallback.error().kind, ErrorKind::Usage);
    EXPECT_NE(noCallback.error().message.find("onTile"), std::string::npos);

    kernels::PyramidRequest reversed = good;
    reversed.finestLevel = 5;
    auto badRange = build(reversed, collect(tiles));
    ASSERT_FALSE(badRange);
    EXPECT_EQ(badRange.error().kind, ErrorKind::Usage);
    EXPECT_NE(badRange.error().message.find("[5, 4]"), std::string::npos);

    kernels::PyramidRequest tooFine = good;
    tooFine.finestLevel = 0;
    tooFine.maxFinestSide = 512;
    auto big = build(tooFine, collect(tiles));
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().kind, ErrorKind::Usage);
    EXPECT_NE(big.error().message.find("1000 cells per side"), std::string::npos);

    for (MapKind kind : {MapKind::Logit, MapKind::Decay}) {  // the hash source has neither
        kernels::PyramidRequest other = good;
        other.kind = kind;
        auto unsupported = build(other, collect(tiles));
        ASSERT_FALSE(unsupported);
        EXPECT_EQ(unsupported.error().kind, ErrorKind::Unsupported);
        EXPECT_NE(unsupported.error().message.find(kernels::toString(kind)), std::string::npos);
    }
    EXPECT_TRUE(tiles.empty());
}

TEST(PyramidBuilder, CancelsAndReportsProgress) {
    const HashSource source(3000, 0);
    kernels::PyramidRequest request;
    request.finestLevel = 3;
    request.coarsestLevel = 5;
    request.threads = 2;

    std::vector<double> progress;
    Tiles tiles;
    kernels::PyramidCallbacks cb = collect(tiles);
    cb.onProgress = [&](double f) { progress.push_back(f); };
    ASSERT_TRUE(kernels::buildPyramid(source, request, cb));
    ASSERT_FALSE(progress.empty());
    for (size_t i = 1; i < progress.size(); ++i)
        EXPECT_GE(progress[i], progress[i - 1]);
    EXPECT_EQ(progress.back(), 1.0);

    std::atomic<int> polls{0};
    const int computedBefore = source.computed.load();
    Tiles partial;
    kernels::PyramidCallbacks cancelling = collect(partial);
    cancelling.isCancelled = [&] { return polls.fetch_add(1) >= 5; };
    auto result = kernels::buildPyramid(source, request, cancelling);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ErrorKind::Cancelled);
    EXPECT_LE(source.computed.load() - computedBefore, 5);
    EXPECT_TRUE(partial.empty());
}

}  // namespace
}  // namespace gatescope
