// The abstraction the viewer and the pyramid builder use to get any tile of a head's
// token-to-token maps, recomputed exactly from the stored O(N) factors. One implementation per
// attention family (additive decay here; Wall, power attention and GSA add their own).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gatescope::kernels {

/// Which N x N map of a head a tile shows.
enum class MapKind {
    Attention,  ///< normalized weights A[i,j]; 0 for disallowed keys
    Decay,      ///< the decay factor alone (e.g. exp(c_i - c_j)); 1 without decay, 0 disallowed
    Logit,      ///< raw pre-softmax score (scale q.k + c_i - c_j); -inf for disallowed keys
};

/// Returns "attention", "decay" or "logit": the one name of a map everywhere (pyramid names in
/// traces, `--map`, recipe figures, viewer scripts).
const char* toString(MapKind kind);

/// The map toString names; nullopt for any other word.
std::optional<MapKind> parseMapKind(std::string_view word);

/// Source of exact tiles of one head's maps. Implementations are immutable views over factors
/// owned elsewhere (which must outlive them); compute() is const and thread-safe, so one source
/// may serve several worker threads at once.
class TileSource {
public:
    virtual ~TileSource() = default;

    /// Sequence length N: maps are N x N, query rows i and key columns j in [0, N).
    virtual int64_t size() const = 0;

    /// Whether the factors needed for `kind` are present (e.g. Attention needs the row lse).
    virtual bool hasMap(MapKind kind) const = 0;

    /// Band of allowed keys: 0 means all j <= i; w > 0 means i - w + 1 <= j <= i. Keys outside
    /// are "disallowed" and read as 0 (-inf for Logit), which lets callers skip whole tiles.
    virtual int64_t window() const { return 0; }

    /// Writes the tile rows [row0, row0 + rows) x columns [col0, col0 + cols) of map `kind` into
    /// out (row-major, rows x cols, leading dimension cols). Cells outside [0, N)^2 or
    /// disallowed get 0 (-inf for Logit). If !hasMap(kind), out is filled with NaN.
    virtual void compute(MapKind kind, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                         float* out) const = 0;
};

}  // namespace gatescope::kernels
