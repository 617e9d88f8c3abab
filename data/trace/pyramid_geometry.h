// Pyramid geometry: pure functions shared by the writer, the reader and the pyramid builders.
// Level l has cells of 2^l x 2^l tokens; its side is S = ceil(N / 2^l); it is cut in 256 x 256
// tiles.
#pragma once

#include <cstdint>

namespace gatescope::data {

/// The inclusive range of a pyramid's levels, finest (smallest l) to coarsest.
struct PyramidLevels {
    int finest = 0;
    int coarsest = 0;

    int count() const { return coarsest - finest + 1; }
    bool contains(int level) const { return level >= finest && level <= coarsest; }
};

/// S = ceil(n / 2^level) for n >= 1, level >= 0.
int64_t levelSide(int64_t n, int level);
/// ceil(S / 256).
int64_t tilesPerSide(int64_t n, int level);
/// Tiles with col <= row: the causal ones, the only ones ever stored (T (T + 1) / 2).
int64_t causalTileCount(int64_t n, int level);
/// Default range: finest = smallest l with S <= finestSide; coarsest = smallest l with S <= 256,
/// and never finer than finest (so at least one level).
PyramidLevels defaultPyramidLevels(int64_t n, int64_t finestSide = 1024);

/// Format v4 stores every kPoolStride-th level from the finest; readers pool each other level from
/// the nearest stored level below, at most kPoolStride - 1 levels down: a pooled tile reads at
/// most 4^(kPoolStride - 1) = 16 stored tiles.
inline constexpr int kPoolStride = 3;
/// Whether format v4 stores `level` of `levels`: (level - finest) % kPoolStride == 0.
bool isStoredLevel(const PyramidLevels& levels, int level);

}  // namespace gatescope::data
