// LayerRecorder::writePyramids: one head at a time, exact tiles from the layer's factors pooled
// into the stored levels, streamed into the writer tile by tile.
#include <set>

#include <fmt/format.h>

#include "core/maps/head_maps.h"
#include "core/trace/layer_recorder.h"
#include "data/trace/pyramid_geometry.h"
#include "kernels/cpu/pyramid_builder.h"

namespace gatescope::core {

namespace {

MapSpec mapSpecOf(const LayerAttention& a) {
    MapSpec spec;
    spec.scoreKind = a.scoreKind;
    spec.scale = a.scale;
    spec.window = a.window;
    spec.hasDecay = a.hasDecay;
    spec.extras = a.extras;
    return spec;
}

/// Head `head`'s slice of every factor; [Hkv, N, D] factors map query heads onto kv heads.
HeadFactorSet headFactors(const LayerRecord& rec, int head) {
    HeadFactorSet set;
    for (const auto& [name, array] : rec.factors) {
        if (array.shape.size() < 2) continue;
        const int64_t stored = array.shape[0], n = array.shape[1];
        const int64_t width = array.shape.size() == 3 ? array.shape[2] : 1;
        const int64_t index =
            stored == rec.attention.heads ? head : head * stored / rec.attention.heads;
        const auto begin = array.data.begin() + index * n * width;
        set.n = n;
        set.add(name, std::vector<float>(begin, begin + n * width), width);
    }
    return set;
}

}  // namespace

Status LayerRecorder::writePyramids(const LayerRecord& rec) {
    const MapSpec spec = mapSpecOf(rec.attention);
    const int64_t n = m_writer.nTokens();
    const auto levels = data::defaultPyramidLevels(n, m_request.pyramidFinestSide);
    const auto maps = availableMaps(spec);
    for (auto kind : maps) {
        auto st =
            m_writer.createPyramid(rec.layer, kernels::toString(kind), levels, rec.attention.heads);
        if (!st) return st;
    }
    std::set<int> heads(m_request.pyramidHeads.begin(), m_request.pyramidHeads.end());
    for (int head = 0; head < rec.attention.heads; ++head) {
        if (!heads.empty() && !heads.count(head)) continue;
        const auto factors = headFactors(rec, head);
        auto source = makeTileSource(spec, factors);
        if (!source) {
            Error e = source.error();
            e.message = fmt::format("layer {} head {}: {}", rec.layer, head, e.message);
            return e;
        }
        for (auto kind : maps) {
            kernels::PyramidRequest request;
            request.kind = kind;
            request.finestLevel = levels.finest;
            request.coarsestLevel = levels.coarsest;
            request.threads = m_request.threads;
            Status written = Ok{};
            kernels::PyramidCallbacks callbacks;
            const std::string map = kernels::toString(kind);
            callbacks.onTile = [&](int level, kernels::Pool pool, int64_t row, int64_t col,
                                   const float* tile) {
                if (!written) return;
                const auto p = pool == kernels::Pool::Max ? data::Pool::Max : data::Pool::Mean;
                written = m_writer.writePyramidTile(rec.layer, map, p, level, head, row, col, tile);
            };
            callbacks.isCancelled = [&] { return m_cancel && m_cancel->load(); };
            if (auto st = kernels::buildPyramid(**source, request, callbacks); !st) return st;
            if (!written) return written;
        }
    }
    return Ok{};
}

}  // namespace gatescope::core
