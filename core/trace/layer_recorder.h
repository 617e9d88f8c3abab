// Private to core/trace: the Probe that streams each layer's record into the trace writer (header,
// gates, factors) and builds its pyramids from the factors, layer by layer, so the job holds one
// layer's factors at a time.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "core/model/probe.h"
#include "core/trace/trace_job.h"
#include "data/trace/trace_writer.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::core {

class LayerRecorder final : public Probe {
public:
    /// `writer`, `request` and `cancel` must outlive the recorder. `onLayerDone(layer)` reports
    /// progress after each layer is written.
    LayerRecorder(data::TraceWriter& writer, const TraceRequest& request,
                  const std::atomic<bool>* cancel, std::function<void(int, double)> onLayerDone);

    bool wantsLayer(int layer) const override;
    void onLayer(LayerRecord&& record) override;

    /// The first error met while writing; the forward is cancelled when one occurs.
    const std::optional<Error>& failure() const { return m_failure; }
    int layersRecorded() const { return m_recorded; }

private:
    Status record(LayerRecord& record);
    Status writePyramids(const LayerRecord& record);
    /// Additive-decay pyramids built on the GPU (kernels::cuda::buildPyramid) from
    /// record.deviceFactors; only in builds with the CUDA kernels.
    Status writeDevicePyramids(const LayerRecord& record, int finestLevel, int coarsestLevel,
                               const std::vector<kernels::MapKind>& maps,
                               const std::set<int>& heads);

    data::TraceWriter& m_writer;
    const TraceRequest& m_request;
    const std::atomic<bool>* m_cancel;
    std::function<void(int, double)> m_onLayerDone;
    std::set<int> m_layers;
    std::optional<Error> m_failure;
    int m_recorded = 0;
};

}  // namespace gatescope::core
