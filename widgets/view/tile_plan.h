// Level selection and tile planning: which tiles of which level cover what the viewport shows.
// Pure functions, display-free.
#pragma once

#include <cstdint>
#include <vector>

#include "widgets/view/tile_key.h"
#include "widgets/view/viewport.h"

namespace gatescope::widgets {

/// What the trace stores for the map on screen.
struct LevelRange {
    int finest = 0;    ///< finest stored pyramid level
    int coarsest = 0;  ///< coarsest stored pyramid level
    bool hasPyramid = true;
    bool canRecompute = true;  ///< the factors to recompute exact tiles are present
};

struct LevelChoice {
    int level = 0;       ///< cells of 2^level tokens
    bool exact = false;  ///< exact tiles (level 0) recomputed from factors
};

/// The level to draw at `tokensPerPixel`: the finest level whose cells are at least one pixel
/// (clamped to the stored range), or exact tiles when a token is at least a pixel, the finest
/// stored level is coarser than single tokens and at most `maxExactTiles` exact tiles are
/// visible. Without a pyramid, always exact.
LevelChoice chooseLevel(double tokensPerPixel, const LevelRange& range, int64_t exactTilesVisible,
                        int64_t maxExactTiles = 48);

/// The causal (col <= row) tiles of level `level` that meet `rect`, ordered from the centre of
/// `rect` outwards (so the middle of the screen loads first). `n` is the sequence length.
std::vector<TileKey> visibleTiles(const TokenRect& rect, int64_t n, const TileKey& base);

/// How many causal level-0 tiles meet `rect` (cost of exact tiles on this screen).
int64_t causalTileCount(const TokenRect& rect, int64_t n, int level);

}  // namespace gatescope::widgets
