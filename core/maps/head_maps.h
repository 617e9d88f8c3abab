// From stored O(N) factors to exact tiles of a head's attention and decay maps, for every
// architecture: the trace job (building pyramids) and the viewer (tiles past the finest pyramid
// level) both go through here, so neither knows any architecture's formula.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/maps/score_kind.h"
#include "core/model/probe.h"
#include "data/common/result.h"
#include "data/trace/trace_types.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::core {

/// How a layer forms its maps: the trace's layer header says it all.
struct MapSpec {
    ScoreKind scoreKind = ScoreKind::AdditiveDecay;
    double scale = 1.0;
    int64_t window = 0;
    bool hasDecay = false;
    nlohmann::json extras = nlohmann::json::object();
};

/// The stored layer's spec: its score kind, and scale, window and has_decay from the header's
/// extras. Errors: a score kind gatescope cannot recompute (Unsupported, naming it; newer traces
/// or other tools).
Result<MapSpec> mapSpecFromHeader(const data::LayerHeader& header);

/// The spec of a layer a forward reports (what the trace job stores in the header).
MapSpec mapSpecOf(const LayerAttention& attention);

/// One head's factors, owned: name -> [N, width] row-major (width 1 for [H, N] factors).
struct HeadFactorSet {
    int64_t n = 0;
    std::map<std::string, std::vector<float>> arrays;
    std::map<std::string, int64_t> widths;

    void add(const std::string& name, std::vector<float> values, int64_t width);
    const float* find(const std::string& name) const;
    int64_t width(const std::string& name) const;
};

/// The maps a layer of this kind has, in display order ({Attention, Decay} or {Attention}).
std::vector<kernels::MapKind> availableMaps(const MapSpec& spec);

/// The factor names makeTileSource needs for `spec` (so readers fetch only those).
std::vector<std::string> requiredFactors(const MapSpec& spec);

/// A TileSource over `factors` (which must outlive it). Errors: a required factor missing
/// (Missing, naming it) or of the wrong width (Shape).
Result<std::unique_ptr<kernels::TileSource>> makeTileSource(const MapSpec& spec,
                                                            const HeadFactorSet& factors);

}  // namespace gatescope::core
