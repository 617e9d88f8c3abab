#include "widgets/view/layer_stats.h"

#include <thread>

namespace gatescope::widgets {

std::shared_ptr<GateStatsSlot> startGateStats(std::shared_ptr<const data::TraceReader> reader,
                                              int layer, std::function<void()> finished) {
    auto slot = std::make_shared<GateStatsSlot>();
    slot->layer = layer;
    std::thread([slot, reader = std::move(reader), layer, finished = std::move(finished)] {
        std::optional<core::LayerGateStats> value;
        std::string error;
        const data::LayerInfo* info = reader->summary().layer(layer);
        if (!info || !info->hasGates) {
            error = "layer " + std::to_string(layer) + " has no gates";
        } else if (auto gates = reader->gates(layer); !gates) {
            error = gates.error().describe();
        } else if (!slot->cancel) {
            value = core::gateStats(layer, *gates);
        }
        {
            std::lock_guard lock(slot->mutex);
            slot->value = std::move(value);
            slot->error = slot->cancel && !slot->value && error.empty() ? "cancelled" : error;
            slot->done = true;
        }
        if (finished) finished();
    }).detach();
    return slot;
}

std::shared_ptr<AttentionStatsSlot> startAttentionStats(
    std::shared_ptr<const data::TraceReader> reader, int layer, std::function<void()> finished,
    int threads) {
    auto slot = std::make_shared<AttentionStatsSlot>();
    slot->layer = layer;
    std::thread([slot, reader = std::move(reader), layer, finished = std::move(finished), threads] {
        core::AttentionStatsOptions options;
        options.threads = threads;
        options.cancel = &slot->cancel;
        auto result = core::attentionStats(*reader, layer, options);
        {
            std::lock_guard lock(slot->mutex);
            if (result)
                slot->value = std::move(*result);
            else
                slot->error = result.error().describe();
            slot->done = true;
        }
        if (finished) finished();
    }).detach();
    return slot;
}

int headOfGateRow(const core::LayerGateStats& stats, size_t row) {
    return row < stats.channels.size() ? stats.channels[row].head : -1;
}

int headOfAttentionRow(const std::vector<core::HeadAttentionStats>& stats, size_t row) {
    return row < stats.size() ? stats[row].head : -1;
}

}  // namespace gatescope::widgets
