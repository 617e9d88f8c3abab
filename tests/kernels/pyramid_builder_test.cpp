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
#include "pyramid_test_support.h"

namespace gatescope {
namespace {

using kernels::MapKind;
using test::pyramid::collect;
using test::pyramid::expectPyramid;
using test::pyramid::HashSource;
using test::pyramid::Tiles;

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

}  // namespace
}  // namespace gatescope
