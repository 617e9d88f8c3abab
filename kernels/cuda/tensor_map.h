// Private to kernels/cuda: tensor maps, the descriptors that bulk tensor copies (TMA) read, for
// the wgmma forward's key and value tiles (wgmma_forward_kernel.cuh).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace gatescope::kernels::cuda::detail {

/// Copies of one operand's tiles: boxes of 64 16-bit elements (one 128-byte column block) by
/// `boxRows` rows of one head, 128-byte swizzled as mma_sm90.cuh lays tiles out. Coordinates are
/// (column, row, head), or (column, head, row) when `headsInner` (the heads' stride is below the
/// rows', as in a packed [N, heads, D] layout: the map's dimensions go by increasing stride).
/// Rows past the operand's end are copied as zeros.
struct TileMap {
    CUtensorMap map;
    int headsInner;
};

/// The key and value maps of one launch, passed by value as a __grid_constant__ parameter.
struct KvTileMaps {
    TileMap k, v;
};

/// Encodes `map` for `heads` heads of `rows` rows of `dim` 16-bit elements at `base` (head h, row
/// r at base + h headStride + r rowStride elements). Returns empty, or why the driver refused
/// (strides and `base` must be multiples of 16 bytes; `dim` a multiple of 64).
std::string encodeTileMap(TileMap& map, const void* base, int dim, int64_t rows, int heads,
                          int64_t rowStride, int64_t headStride, int boxRows);

}  // namespace gatescope::kernels::cuda::detail
