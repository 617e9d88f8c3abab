#include "widgets/view/layer_stats.h"

#include "widgets/view/retention_model.h"

#include <string>

namespace gatescope::widgets {

Result<core::LayerGateStats> computeGateStats(const data::TraceReader& reader, int layer,
                                              const std::atomic<bool>& cancelled) {
    const data::LayerInfo* info = reader.summary().layer(layer);
    if (!info || !info->hasGates) return noGatesError(reader.summary(), layer);
    auto gates = reader.gates(layer);
    if (!gates) return gates.error();
    if (cancelled) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
    return core::gateStats(layer, *gates);
}

Result<std::vector<core::HeadAttentionStats>> computeAttentionStats(
    const data::TraceReader& reader, int layer, int threads, const std::atomic<bool>& cancelled) {
    core::AttentionStatsOptions options;
    options.threads = threads;
    options.cancel = &cancelled;
    return core::attentionStats(reader, layer, options);
}

int headOfGateRow(const core::LayerGateStats& stats, size_t row) {
    return row < stats.channels.size() ? stats.channels[row].head : -1;
}

int headOfAttentionRow(const std::vector<core::HeadAttentionStats>& stats, size_t row) {
    return row < stats.size() ? stats[row].head : -1;
}

}  // namespace gatescope::widgets
