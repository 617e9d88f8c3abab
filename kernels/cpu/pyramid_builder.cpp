#include "kernels/cpu/pyramid_builder.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/pyramid_grid.h"

namespace gatescope::kernels {
namespace {

constexpr int kMaxLevel = 62;

Error usage(std::string message) {
    return Error{ErrorKind::Usage, std::move(message), "", "pyramid request"};
}

Status checkRequest(const TileSource& source, const PyramidRequest& request,
                    const PyramidCallbacks& callbacks) {
    if (!callbacks.onTile) return usage("no onTile callback");
    if (request.finestLevel < 0 || request.coarsestLevel < request.finestLevel ||
        request.coarsestLevel > kMaxLevel)
        return usage("level range [" + std::to_string(request.finestLevel) + ", " +
                     std::to_string(request.coarsestLevel) + "] is not within 0 <= finest <= " +
                     "coarsest <= " + std::to_string(kMaxLevel));
    if (request.kind == MapKind::Logit || !source.hasMap(request.kind))
        return Error{ErrorKind::Unsupported,
                     std::string("no pyramid of the ") + toString(request.kind) + " map: " +
                         (request.kind == MapKind::Logit
                              ? "logits are -inf off the band, so pools are undefined"
                              : "the tile source lacks its factors"),
                     "", "pyramid request"};
    const int64_t side = pyramidSide(source.size(), request.finestLevel);
    if (side > request.maxFinestSide)
        return usage(
            "finest level " + std::to_string(request.finestLevel) + " has " + std::to_string(side) +
            " cells per side for n = " + std::to_string(source.size()) + ", over the limit of " +
            std::to_string(request.maxFinestSide) + "; choose a coarser finest level");
    return Ok{};
}

Error cancelled() {
    return Error{ErrorKind::Cancelled, "pyramid build cancelled", "", ""};
}

}  // namespace

int64_t pyramidSide(int64_t n, int level) {
    if (n <= 0) return 0;
    return ((n - 1) >> level) + 1;
}

Status buildPyramid(const TileSource& source, const PyramidRequest& request,
                    const PyramidCallbacks& callbacks) {
    if (Status ok = checkRequest(source, request, callbacks); !ok) return ok;
    const int64_t n = source.size();
    if (n == 0) {
        if (callbacks.onProgress) callbacks.onProgress(1.0);
        return Ok{};
    }
    const int64_t window = source.window();
    detail::PyramidGrid grid(n, request.finestLevel);

    // Row bands own whole cell rows of the finest grid, so workers never write the same cell.
    const int64_t cellTokens = int64_t{1} << std::min(request.finestLevel, kMaxLevel);
    const int64_t bandRows = std::max(kPyramidTile, cellTokens);
    const int64_t bands = (n + bandRows - 1) / bandRows;
    auto firstTileCol = [&](int64_t tileRow) {
        const int64_t r0 = tileRow * kPyramidTile;
        return window > 0 ? std::max<int64_t>(r0 - window + 1, 0) / kPyramidTile : 0;
    };
    const int64_t tileRows = (n + kPyramidTile - 1) / kPyramidTile;
    int64_t totalTiles = 0;
    for (int64_t tr = 0; tr < tileRows; ++tr)
        totalTiles += tr - firstTileCol(tr) + 1;

    std::atomic<bool> stop{false};
    std::atomic<int64_t> doneTiles{0};
    std::mutex progressMutex;
    double reported = 0.0;
    parallelFor(
        0, bands, 1,
        [&](int64_t begin, int64_t end) {
            std::vector<float> tile(kPyramidTile * kPyramidTile);
            std::vector<double> colSum(kPyramidTile);
            std::vector<float> colMax(kPyramidTile);
            for (int64_t b = begin; b < end; ++b) {
                const int64_t band = bands - 1 - b;  // the lowest bands hold the most tiles
                const int64_t rowEnd = std::min((band + 1) * bandRows, n);
                for (int64_t tr = band * bandRows / kPyramidTile; tr * kPyramidTile < rowEnd;
                     ++tr) {
                    for (int64_t tc = firstTileCol(tr); tc <= tr; ++tc) {
                        if (stop.load(std::memory_order_relaxed)) return;
                        if (callbacks.isCancelled && callbacks.isCancelled()) {
                            stop.store(true);
                            return;
                        }
                        source.compute(request.kind, tr * kPyramidTile, kPyramidTile,
                                       tc * kPyramidTile, kPyramidTile, tile.data());
                        grid.addTile(tr * kPyramidTile, tc * kPyramidTile, tile.data(),
                                     colSum.data(), colMax.data());
                        const int64_t done = doneTiles.fetch_add(1) + 1;
                        if (callbacks.onProgress) {
                            std::lock_guard<std::mutex> lock(progressMutex);
                            const double fraction = 0.99 * done / totalTiles;
                            if (fraction > reported) callbacks.onProgress(reported = fraction);
                        }
                    }
                }
            }
        },
        request.threads);
    if (stop.load()) return cancelled();
    grid.foldDisallowed(window);

    std::vector<float> out(kPyramidTile * kPyramidTile);
    for (int level = request.finestLevel;; ++level) {
        const int64_t tiles = (grid.side() + kPyramidTile - 1) / kPyramidTile;
        for (int64_t tr = 0; tr < tiles; ++tr) {
            if (callbacks.isCancelled && callbacks.isCancelled()) return cancelled();
            for (int64_t tc = 0; tc <= tr; ++tc) {
                for (Pool pool : {Pool::Max, Pool::Mean}) {
                    grid.fillTile(pool, tr, tc, out.data());
                    callbacks.onTile(level, pool, tr, tc, out.data());
                }
            }
        }
        if (level == request.coarsestLevel) break;
        grid = grid.coarser();
    }
    if (callbacks.onProgress) callbacks.onProgress(1.0);
    return Ok{};
}

}  // namespace gatescope::kernels
