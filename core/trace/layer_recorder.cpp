#include "core/trace/layer_recorder.h"

#include <fmt/format.h>

namespace gatescope::core {

namespace {

data::LayerHeader headerOf(const LayerAttention& a) {
    data::LayerHeader h;
    h.nHeads = a.heads;
    h.nKvHeads = a.kvHeads;
    h.headDim = a.headDim;
    h.valueDim = a.valueDim;
    h.nChannels = a.channels;
    h.scoreKind = a.scoreKind;
    h.extras = a.extras;
    h.extras["scale"] = a.scale;
    h.extras["window"] = a.window;
    h.extras["has_decay"] = a.hasDecay;
    return h;
}

}  // namespace

LayerRecorder::LayerRecorder(data::TraceWriter& writer, const TraceRequest& request,
                             const std::atomic<bool>* cancel,
                             std::function<void(int, double)> onLayerDone)
    : m_writer(writer),
      m_request(request),
      m_cancel(cancel),
      m_onLayerDone(std::move(onLayerDone)),
      m_layers(request.layers.begin(), request.layers.end()) {}

bool LayerRecorder::wantsLayer(int layer) const {
    return !m_failure && (m_layers.empty() || m_layers.count(layer));
}

void LayerRecorder::onLayer(LayerRecord&& rec) {
    if (m_failure) return;
    if (auto status = record(rec); !status) {
        m_failure = status.error();
        return;
    }
    ++m_recorded;
    if (m_onLayerDone) m_onLayerDone(rec.layer, 1.0);
}

Status LayerRecorder::record(LayerRecord& rec) {
    if (auto st = m_writer.writeLayer(rec.layer, headerOf(rec.attention)); !st) return st;
    if (!rec.logRetention.data.empty()) {
        const auto& g = rec.logRetention;
        auto st = m_writer.writeGates(rec.layer, g.data.data(), static_cast<int>(g.dim(0)),
                                      g.dim(1), static_cast<int>(g.dim(2)));
        if (!st) return st;
    }
    if (m_request.storeFactors) {
        for (const auto& [name, array] : rec.factors) {
            if (name == "v" && !m_request.storeValues) continue;
            auto st = m_writer.writeFactor(rec.layer, name, array.data.data(), array.shape);
            if (!st) return st;
        }
    }
    if (m_request.storePyramids) return writePyramids(rec);
    return Ok{};
}

}  // namespace gatescope::core
