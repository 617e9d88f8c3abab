#include "core/maps/trace_head.h"

#include <algorithm>

#include <fmt/format.h>

#include "data/trace/trace_schema.h"

namespace gatescope::core {

bool canRecomputeExactTiles(const data::LayerInfo& layer) {
    const auto spec = mapSpecFromHeader(layer.header);
    if (!spec) return false;
    const auto names = requiredFactors(*spec);
    return !names.empty() && std::all_of(names.begin(), names.end(), [&](const std::string& name) {
        return layer.factor(name) != nullptr;
    });
}

Result<std::unique_ptr<TraceHead>> loadTraceHead(const data::TraceReader& reader, int layer,
                                                 int head) {
    const data::LayerInfo* info = reader.summary().layer(layer);
    if (!info) {
        return Error{ErrorKind::Missing,
                     fmt::format("layer {} is not in the trace", layer),
                     reader.path(),
                     {}};
    }
    auto out = std::make_unique<TraceHead>();
    out->layer = layer;
    out->head = head;
    auto spec = mapSpecFromHeader(info->header);
    if (!spec) {
        Error e = spec.error();
        e.file = reader.path();
        e.object = data::schema::layerPath(layer);
        return e;
    }
    out->spec = std::move(*spec);
    const int64_t n = reader.summary().nTokens;
    out->factors.n = n;
    for (const std::string& name : requiredFactors(out->spec)) {
        const data::FactorInfo* f = info->factor(name);
        if (!f) {
            return Error{ErrorKind::Missing, "factor needed to recompute exact tiles is absent",
                         reader.path(), data::schema::factorPath(layer, name)};
        }
        const int64_t stored = f->shape.empty() ? 1 : f->shape[0];
        const int64_t heads = info->header.nHeads;
        const int index = static_cast<int>(stored == heads ? head : head * stored / heads);
        auto rows = reader.factor(layer, name, index, 0, n);
        if (!rows) return rows.error();
        const int64_t width = rows->shape.size() == 2 ? rows->shape[1] : 1;
        out->factors.add(name, std::move(rows->values), width);
    }
    auto source = makeTileSource(out->spec, out->factors);
    if (!source) {
        Error e = source.error();
        if (e.file.empty()) e.file = reader.path();
        return e;
    }
    out->source = std::move(*source);
    return out;
}

}  // namespace gatescope::core
