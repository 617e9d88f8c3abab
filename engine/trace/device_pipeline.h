// Private to core/trace: LayerRecorder's path for layers whose arrays stayed on the GPU
// (DeviceFactors::arrays). Per layer, on a side stream that waits for the layer's forward: the
// arrays the trace stores are copied into page-locked host memory, and the pyramids of all heads
// are built (one launch per map) and copied back, while the forward goes on with the next layers
// on the default stream. A writer thread waits for each layer's copies and hands it to the write
// function (the HDF5 writer). At most `slots` layers are in flight (bounded host and device
// memory); submit() blocks while all are.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/probe.h"
#include "data/common/result.h"
#include "engine/trace/trace_job.h"
#include "kernels/cpu/tile_source.h"

namespace gatescope::core {

/// One layer copied to the host: where its arrays and pyramid levels lie in `host`.
struct StagedLayer {
    struct Array {
        std::string name;  ///< a factor name, or "log_retention" (the gates)
        std::vector<int64_t> shape;
        bool bf16 = false;
        std::size_t offset = 0;  ///< bytes into host
    };
    struct Pyramid {
        kernels::MapKind kind = kernels::MapKind::Attention;
        /// Per level (finestLevel first): heads x S x S floats, max- and mean-pooled.
        std::vector<std::size_t> maxOffsets, meanOffsets;
    };
    int layer = 0;
    LayerAttention attention;
    std::vector<Array> arrays;
    std::vector<Pyramid> pyramids;
    /// Maps the writer derives from the stored c (format v3's decay map when every head's c is
    /// non-increasing): created in the file, never built or copied.
    std::vector<kernels::MapKind> derivedMaps;
    int finestLevel = 0, coarsestLevel = 0;
    const std::byte* host = nullptr;
};

class DevicePipeline {
public:
    /// `write` runs on the writer thread, one layer at a time, in submission order.
    using WriteFn = std::function<Status(const StagedLayer&)>;
    DevicePipeline(WriteFn write, const TraceRequest& request, int slots = 2);
    /// Waits for the layers in flight (writing them unless abandon() was called).
    ~DevicePipeline();
    DevicePipeline(const DevicePipeline&) = delete;
    DevicePipeline& operator=(const DevicePipeline&) = delete;

    /// Queues `record`'s copies and pyramids (n tokens) behind the work already queued on the
    /// legacy default stream and hands the layer to the writer thread. Returns the pipeline's
    /// first error, if any.
    Status submit(const LayerRecord& record, int64_t n);
    /// Waits until every submitted layer is written; returns the first error.
    Status drain();
    /// Layers still queued are dropped instead of written (after an error elsewhere).
    void abandon();
    std::optional<Error> failure() const;

private:
    struct Slot;
    Slot* acquire();
    Status stage(Slot& slot, const LayerRecord& record, int64_t n);
    void writerLoop();
    void fail(Error error);

    WriteFn m_write;
    const TraceRequest& m_request;
    std::vector<std::unique_ptr<Slot>> m_slots;
    void* m_stream = nullptr;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Slot*> m_queue;
    int m_pending = 0;  ///< submitted, not yet written
    bool m_stop = false;
    bool m_abandoned = false;
    std::optional<Error> m_failure;
    std::thread m_thread;
};

}  // namespace gatescope::core
