// Test support for the pyramid builder: a synthetic TileSource with known values, and helpers
// that collect delivered tiles and compare whole pyramids with densePool.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "kernels/cpu/pyramid_builder.h"
#include "kernels/reference/dense_pool.h"

namespace gatescope::test::pyramid {

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

inline kernels::PyramidCallbacks collect(Tiles& tiles) {
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
inline void expectPyramid(const Tiles& tiles, const std::vector<double>& dense, int64_t n,
                          int finest, int coarsest, double tolerance) {
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

}  // namespace gatescope::test::pyramid
