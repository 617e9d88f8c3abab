#include "data/trace/pyramid_geometry.h"

#include <algorithm>

#include "data/trace/trace_schema.h"

namespace gatescope::data {

int64_t levelSide(int64_t n, int level) {
    int64_t cell = int64_t{1} << level;
    return (n + cell - 1) / cell;
}

int64_t tilesPerSide(int64_t n, int level) {
    return (levelSide(n, level) + kTileSide - 1) / kTileSide;
}

int64_t causalTileCount(int64_t n, int level) {
    int64_t t = tilesPerSide(n, level);
    return t * (t + 1) / 2;
}

namespace {
int smallestLevelWithin(int64_t n, int64_t side) {
    int level = 0;
    while (level < 62 && levelSide(n, level) > side)
        ++level;
    return level;
}
}  // namespace

PyramidLevels defaultPyramidLevels(int64_t n, int64_t finestSide) {
    PyramidLevels levels;
    levels.finest = smallestLevelWithin(n, std::max<int64_t>(finestSide, 1));
    levels.coarsest = std::max(levels.finest, smallestLevelWithin(n, kTileSide));
    return levels;
}

bool isStoredLevel(const PyramidLevels& levels, int level) {
    return levels.contains(level) && (level - levels.finest) % kPoolStride == 0;
}

}  // namespace gatescope::data
