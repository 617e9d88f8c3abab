// Private to core/trace: the Probe that streams each layer's record into the trace writer (header,
// gates, factors) and builds its pyramids from the factors, layer by layer. On the CPU the job
// holds one layer's factors at a time. Layers that ran on CUDA leave their arrays on the GPU
// (Probe::takesDeviceArrays): a DevicePipeline copies what the trace stores and the GPU-built
// pyramids to page-locked host memory on a side stream, overlapped with the next layers' forward,
// and writes them on its writer thread (at most two layers in flight).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "core/maps/head_maps.h"
#include "core/model/probe.h"
#include "data/trace/trace_writer.h"
#include "engine/trace/device_pipeline.h"
#include "engine/trace/trace_job.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::core {

class LayerRecorder final : public Probe {
public:
    /// `writer`, `request` and `cancel` must outlive the recorder. `onLayerDone(layer)` reports
    /// progress after each layer is handed over (written, or queued for the writer thread), on
    /// the forward's thread.
    LayerRecorder(data::TraceWriter& writer, const TraceRequest& request,
                  const std::atomic<bool>* cancel, std::function<void(int, double)> onLayerDone);
    /// Layers still queued for the writer thread are dropped (call finish() to write them).
    ~LayerRecorder() override;

    bool wantsLayer(int layer) const override;
    bool wantsFactor(std::string_view name) const override;
    bool takesDeviceArrays() const override;
    void onLayer(LayerRecord&& record) override;

    /// Waits until every layer handed over is written (the writer is free for the caller again);
    /// returns failure() if any. Call after the forward.
    Status finish();
    /// The first error met while writing; the forward is cancelled when one occurs. Safe to call
    /// while the writer thread runs.
    std::optional<Error> failure() const;
    int layersRecorded() const { return m_recorded.load(); }
    /// Benchmarks only: everything is computed and copied to host memory, nothing is written.
    void setDiscardOutput(bool discard) { m_discard = discard; }

private:
    Status record(LayerRecord& record);
    Status writePyramids(const LayerRecord& record);
    /// Additive-decay pyramids built on the GPU (kernels::cuda::buildPyramid) from
    /// record.deviceFactors when its arrays came to the host; only in builds with CUDA kernels.
    Status writeDevicePyramids(const LayerRecord& record, int finestLevel, int coarsestLevel,
                               const std::vector<kernels::MapKind>& maps,
                               const std::set<int>& heads);
    /// Wall, power and GSA pyramids on the GPU (kernels::cuda::buildWallPyramids,
    /// buildPowerPyramids, buildGsaPyramids) from the record's host factors, all heads at once,
    /// for traces that run on CUDA.
    Status writeGatedDevicePyramids(const LayerRecord& record, const MapSpec& spec, int finestLevel,
                                    int coarsestLevel, const std::vector<kernels::MapKind>& maps,
                                    const std::set<int>& heads);
    /// The writer thread's half of the DevicePipeline: one staged layer into the file.
    Status writeStaged(const StagedLayer& staged);
    /// writeStaged's writes, queued while the writer holds them; bf16 arrays stored as float32
    /// are widened into buffers appended to `widened`.
    Status queueStaged(const StagedLayer& staged, std::deque<std::vector<float>>& widened);
    void setFailure(Error error);

    data::TraceWriter& m_writer;
    const TraceRequest& m_request;
    const std::atomic<bool>* m_cancel;
    std::function<void(int, double)> m_onLayerDone;
    std::set<int> m_layers;
    mutable std::mutex m_mutex;
    std::optional<Error> m_failure;
    std::atomic<int> m_recorded{0};
    bool m_discard = false;
    std::unique_ptr<DevicePipeline> m_pipeline;
};

}  // namespace gatescope::core
