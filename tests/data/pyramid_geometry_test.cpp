// Pyramid geometry against definitions computed naively (floating point ceil, linear search).
#include <gtest/gtest.h>

#include <cmath>

#include "data/trace/pyramid_geometry.h"

namespace gatescope::data {
namespace {

const int64_t kSizes[] = {1,    2,    255,   256,   257,   1000,   1023,  1024,
                          1025, 4097, 65535, 65536, 65537, 100000, 131072};

int64_t naiveSide(int64_t n, int level) {
    return static_cast<int64_t>(std::ceil(static_cast<double>(n) / std::pow(2.0, level)));
}

TEST(PyramidGeometry, LevelSideAndTilesMatchCeilDivision) {
    for (int64_t n : kSizes)
        for (int level = 0; level <= 20; ++level) {
            int64_t side = naiveSide(n, level);
            EXPECT_EQ(levelSide(n, level), side) << n << " " << level;
            EXPECT_EQ(tilesPerSide(n, level), static_cast<int64_t>(std::ceil(side / 256.0)));
            int64_t t = static_cast<int64_t>(std::ceil(side / 256.0));
            int64_t causal = 0;
            for (int64_t r = 0; r < t; ++r)
                for (int64_t c = 0; c < t; ++c)
                    causal += c <= r;
            EXPECT_EQ(causalTileCount(n, level), causal);
        }
}

TEST(PyramidGeometry, DefaultLevelsAreTheSmallestThatFit) {
    for (int64_t finestSide : {256, 1024, 4096})
        for (int64_t n : kSizes) {
            int finest = 0;
            while (naiveSide(n, finest) > finestSide)
                ++finest;
            int coarsest = 0;
            while (naiveSide(n, coarsest) > 256)
                ++coarsest;
            PyramidLevels levels = defaultPyramidLevels(n, finestSide);
            EXPECT_EQ(levels.finest, finest) << n;
            EXPECT_EQ(levels.coarsest, std::max(finest, coarsest)) << n;
            EXPECT_GE(levels.count(), 1);
        }
    EXPECT_EQ(defaultPyramidLevels(65536).finest, 6);    // S = 1024
    EXPECT_EQ(defaultPyramidLevels(65536).coarsest, 8);  // S = 256
    EXPECT_EQ(defaultPyramidLevels(1).count(), 1);
    // A finest side below 256 still yields one level at least.
    PyramidLevels tiny = defaultPyramidLevels(100000, 100);
    EXPECT_EQ(tiny.count(), 1);
    EXPECT_LE(levelSide(100000, tiny.finest), 100);
}

}  // namespace
}  // namespace gatescope::data
