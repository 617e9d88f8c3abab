#include "engine/trace/device_pipeline.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/maps/head_maps.h"
#include "core/model/model.h"
#include "data/trace/pyramid_geometry.h"
#include "data/trace/trace_schema.h"
#include "engine/torch_pch.h"
#ifdef GATESCOPE_HAS_CUDA
#include "engine/nn/device_check.h"
#include "kernels/cuda/async_copy.h"
#include "kernels/cuda/attention_cuda.h"
#endif

namespace gatescope::core {

namespace {

Error internal(std::string message) {
    return Error{ErrorKind::Internal, std::move(message), {}, {}};
}

#ifdef GATESCOPE_HAS_CUDA
/// Whether every head's c ([heads, n] float32 on the GPU) is non-increasing (NaN is not), as
/// data::isNonIncreasing decides for the writer: then the writer derives the decay map from c
/// and it need not be built. One reduction on the forward's stream, and a wait for it.
bool nonIncreasingOnDevice(const float* c, int heads, int64_t n) {
    if (!c || n < 2) return c != nullptr;
    auto t = torch::from_blob(const_cast<float*>(c), {heads, n},
                              torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA));
    return (t.narrow(1, 1, n - 1) <= t.narrow(1, 0, n - 1)).all().item<bool>();
}

std::size_t aligned(std::size_t bytes) {
    return (bytes + 255) / 256 * 256;
}

/// Page-locked blocks kept for the next job: pinning ~1 GB takes a good part of a second, as
/// long as a 16k-token forward. Never freed (the process exit releases them; freeing at static
/// destruction could outlive the CUDA runtime). Holds at most the blocks of the largest job.
struct PinnedCache {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> blocks;

    static PinnedCache& instance() {
        static auto* cache = new PinnedCache;
        return *cache;
    }
    /// A block of at least `bytes`, or an error.
    std::string take(std::size_t bytes, void** ptr, std::size_t* size) {
        {
            std::lock_guard lock(mutex);
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                if (blocks[i].second >= bytes) {
                    *ptr = blocks[i].first;
                    *size = blocks[i].second;
                    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
                    return {};
                }
            }
        }
        *size = bytes;
        return kernels::cuda::allocPinned(bytes, ptr);
    }
    void give(void* ptr, std::size_t size) {
        if (!ptr) return;
        std::lock_guard lock(mutex);
        blocks.emplace_back(ptr, size);
        if (blocks.size() > 4) {  // keep the largest four
            std::sort(blocks.begin(), blocks.end(),
                      [](const auto& a, const auto& b) { return a.second > b.second; });
            kernels::cuda::freePinned(blocks.back().first);
            blocks.pop_back();
        }
    }
};
#endif

}  // namespace

/// Page-locked host memory, device memory for pyramid levels and two events, reused layer after
/// layer; busy from submit() until the writer thread has written the layer.
struct DevicePipeline::Slot {
    StagedLayer job;
    std::shared_ptr<const DeviceFactors> device;  ///< keeps the layer's tensors alive
    void* host = nullptr;
    std::size_t hostBytes = 0;
    torch::Tensor levels;   ///< float32 on the GPU, every map's levels
    void* ready = nullptr;  ///< the layer's forward is done (legacy default stream)
    void* done = nullptr;   ///< its copies have landed (side stream)
    bool busy = false;

    ~Slot() {
#ifdef GATESCOPE_HAS_CUDA
        PinnedCache::instance().give(host, hostBytes);
        kernels::cuda::destroyEvent(ready);
        kernels::cuda::destroyEvent(done);
#endif
    }
};

DevicePipeline::DevicePipeline(WriteFn write, const TraceRequest& request, int slots)
    : m_write(std::move(write)), m_request(request) {
    for (int i = 0; i < slots; ++i)
        m_slots.push_back(std::make_unique<Slot>());
    m_thread = std::thread([this] { writerLoop(); });
}

DevicePipeline::~DevicePipeline() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_thread.joinable()) m_thread.join();
#ifdef GATESCOPE_HAS_CUDA
    // A layer whose staging failed halfway may still have copies in flight.
    if (m_stream) kernels::cuda::synchronizeStream(m_stream);
    m_slots.clear();
    kernels::cuda::destroyStream(m_stream);
#endif
}

std::optional<Error> DevicePipeline::failure() const {
    std::lock_guard lock(m_mutex);
    return m_failure;
}

void DevicePipeline::fail(Error error) {
    {
        std::lock_guard lock(m_mutex);
        if (!m_failure) m_failure = std::move(error);
    }
    m_changed.notify_all();
}

void DevicePipeline::abandon() {
    {
        std::lock_guard lock(m_mutex);
        m_abandoned = true;
    }
    m_changed.notify_all();
}

Status DevicePipeline::drain() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_pending == 0; });
    if (m_failure) return *m_failure;
    return Ok{};
}

DevicePipeline::Slot* DevicePipeline::acquire() {
    std::unique_lock lock(m_mutex);
    Slot* free = nullptr;
    m_changed.wait(lock, [&] {
        for (auto& slot : m_slots) {
            if (!slot->busy) {
                free = slot.get();
                return true;
            }
        }
        return m_failure.has_value();
    });
    if (m_failure) return nullptr;
    free->busy = true;
    return free;
}

Status DevicePipeline::submit(const LayerRecord& record, int64_t n) {
    if (!record.deviceFactors) return internal("layer without device arrays in the GPU pipeline");
    Slot* slot = acquire();
    if (!slot) return *failure();
    Status staged = Ok{};
    try {
        staged = stage(*slot, record, n);
    } catch (const std::exception& e) {
        staged = internal(fmt::format("layer {}: GPU staging: {}", record.layer, e.what()));
    }
    if (auto st = staged; !st) {
        // Nothing of this layer may still be running on the side stream's copies when the slot
        // is reused; the failure stops the job, and the destructor waits for the writer.
        fail(st.error());
        std::lock_guard lock(m_mutex);
        slot->busy = false;
        return st;
    }
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(slot);
        ++m_pending;
    }
    m_changed.notify_all();
    return Ok{};
}

Status DevicePipeline::stage(Slot& slot, const LayerRecord& rec, int64_t n) {
#ifndef GATESCOPE_HAS_CUDA
    (void)slot;
    (void)rec;
    (void)n;
    return internal("device arrays in a build without CUDA kernels");
#else
    namespace kc = kernels::cuda;
    const DeviceFactors& f = *rec.deviceFactors;
    auto cudaError = [&](const std::string& e) {
        return internal(fmt::format("layer {}: GPU copy: {}", rec.layer, e));
    };
    if (!m_stream) {
        if (auto e = kc::createStream(&m_stream); !e.empty()) return cudaError(e);
    }
    for (void** event : {&slot.ready, &slot.done}) {
        if (!*event) {
            if (auto e = kc::createEvent(event); !e.empty()) return cudaError(e);
        }
    }

    // Layout: gates first, then the factors the trace stores, then the pyramid levels.
    StagedLayer& job = slot.job;
    job = StagedLayer{};
    job.layer = rec.layer;
    job.attention = rec.attention;
    std::size_t bytes = 0;
    std::vector<const void*> sources;
    auto wanted = [&](const std::string& name) {
        if (name == "log_retention") return true;
        if (!m_request.storeFactors) return false;
        return name != "v" || m_request.storeValues;
    };
    auto addArray = [&](const std::string& name, const DeviceArray& array) {
        StagedLayer::Array a{name, array.shape, array.bf16, bytes};
        bytes += aligned(static_cast<std::size_t>(array.numel()) * (array.bf16 ? 2 : 4));
        job.arrays.push_back(std::move(a));
        sources.push_back(array.data);
    };
    if (auto it = f.arrays.find("log_retention"); it != f.arrays.end())
        addArray(it->first, it->second);
    for (const auto& [name, array] : f.arrays) {
        if (name != "log_retention" && wanted(name)) addArray(name, array);
    }
    const std::size_t arrayBytes = bytes;

    const bool pyramids = m_request.storePyramids;
    if (pyramids && rec.attention.scoreKind != ScoreKind::AdditiveDecay)
        return internal(fmt::format("layer {}: GPU pyramids of a {} layer", rec.layer,
                                    toString(rec.attention.scoreKind)));
    std::vector<float*> maxPtrs, meanPtrs;  // per map, per level
    if (pyramids) {
        const MapSpec spec = mapSpecOf(rec.attention);
        const auto levels = data::defaultPyramidLevels(n, m_request.pyramidFinestSide);
        job.finestLevel = levels.finest;
        job.coarsestLevel = levels.coarsest;
        int64_t floats = 0;
        const bool deriveDecay = m_request.writer.deriveDecayPyramids && rec.attention.hasDecay &&
                                 f.arrays.count("log_decay_cumsum") && wanted("log_decay_cumsum") &&
                                 nonIncreasingOnDevice(f.logDecayCumsum, f.heads, n);
        for (auto kind : availableMaps(spec)) {
            if (kind == kernels::MapKind::Decay && deriveDecay) {
                job.derivedMaps.push_back(kind);
                continue;
            }
            StagedLayer::Pyramid p;
            p.kind = kind;
            for (int level = levels.finest; level <= levels.coarsest; ++level) {
                const int64_t side = kc::pyramidSide(n, level);
                const int64_t cells = int64_t{f.heads} * side * side;
                for (auto* offsets : {&p.maxOffsets, &p.meanOffsets}) {
                    offsets->push_back(bytes);
                    bytes += static_cast<std::size_t>(cells) * 4;
                    floats += cells;
                }
            }
            job.pyramids.push_back(std::move(p));
        }
        if (!slot.levels.defined() || slot.levels.numel() < floats) {
            slot.levels = torch::Tensor();
            slot.levels = torch::empty(
                {floats}, torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA));
        }
        float* base = slot.levels.data_ptr<float>();
        for (const auto& p : job.pyramids) {
            for (std::size_t i = 0; i < p.maxOffsets.size(); ++i) {
                maxPtrs.push_back(base + (p.maxOffsets[i] - arrayBytes) / 4);
                meanPtrs.push_back(base + (p.meanOffsets[i] - arrayBytes) / 4);
            }
        }
    }
    if (slot.hostBytes < bytes) {
        PinnedCache::instance().give(slot.host, slot.hostBytes);
        slot.host = nullptr;
        slot.hostBytes = 0;
        std::size_t size = 0;
        if (auto e = PinnedCache::instance().take(bytes, &slot.host, &size); !e.empty())
            return cudaError(e);
        slot.hostBytes = size;
    }
    job.host = static_cast<const std::byte*>(slot.host);
    auto* host = static_cast<std::byte*>(slot.host);

    // The side stream starts once the work queued so far on the legacy default stream (this
    // layer's forward) is done.
    if (auto e = kc::recordEvent(slot.ready, nullptr); !e.empty()) return cudaError(e);
    if (auto e = kc::streamWaitEvent(m_stream, slot.ready); !e.empty()) return cudaError(e);
    for (std::size_t i = 0; i < job.arrays.size(); ++i) {
        const auto& a = job.arrays[i];
        int64_t count = 1;
        for (int64_t d : a.shape)
            count *= d;
        const std::size_t size = static_cast<std::size_t>(count) * (a.bf16 ? 2 : 4);
        if (auto e = kc::copyToHostAsync(host + a.offset, sources[i], size, m_stream); !e.empty())
            return cudaError(e);
    }
    if (pyramids) {
        const int group = std::max(1, f.heads / std::max(1, f.kvHeads));
        // bf16 q and k (the bf16 forward's values, exact) take the tensor-core pyramid kernel.
        const void* q = f.q;
        const void* k = f.k;
        std::size_t elementBytes = 4;
        const auto qa = f.arrays.find("q"), ka = f.arrays.find("k");
        const bool bf16 = qa != f.arrays.end() && ka != f.arrays.end() && qa->second.bf16 &&
                          ka->second.bf16 && qa->second.numel() == int64_t{f.heads} * f.n * f.dk &&
                          ka->second.numel() == int64_t{f.kvHeads} * f.n * f.dk;
        if (bf16) {
            q = qa->second.data;
            k = ka->second.data;
            elementBytes = 2;
        }
        kc::DeviceHeadFactors h;
        h.n = f.n;
        h.dk = f.dk;
        h.dtype = bf16 ? kc::DType::BF16 : kc::DType::F32;
        h.scale = static_cast<float>(rec.attention.scale);
        h.window = rec.attention.window;
        const int count = job.coarsestLevel - job.finestLevel + 1;
        std::vector<int> heads(m_request.pyramidHeads.begin(), m_request.pyramidHeads.end());
        for (std::size_t m = 0; m < job.pyramids.size(); ++m) {
            const auto kind = job.pyramids[m].kind;
            float* const* maxOut = maxPtrs.data() + m * count;
            float* const* meanOut = meanPtrs.data() + m * count;
            auto launch = [&](int first, int headCount) -> Status {
                kc::DeviceHeadFactors one = h;
                one.q = static_cast<const std::byte*>(q) +
                        int64_t{first} * f.n * f.dk * static_cast<int64_t>(elementBytes);
                one.k = static_cast<const std::byte*>(k) +
                        int64_t{first / group} * f.n * f.dk * static_cast<int64_t>(elementBytes);
                one.lse = f.lse + int64_t{first} * f.n;
                one.logDecayCumsum = f.logDecayCumsum && rec.attention.hasDecay
                                         ? f.logDecayCumsum + int64_t{first} * f.n
                                         : nullptr;
                kc::PyramidHeads batch;
                batch.heads = headCount;
                batch.kvGroup = group;
                std::vector<float*> maxAt(count), meanAt(count);
                for (int i = 0; i < count; ++i) {
                    const int64_t side = kc::pyramidSide(n, job.finestLevel + i);
                    maxAt[i] = maxOut[i] + int64_t{first} * side * side;
                    meanAt[i] = meanOut[i] + int64_t{first} * side * side;
                }
                const std::string error =
                    kc::buildPyramids(one, batch, kind, job.finestLevel, job.coarsestLevel,
                                      maxAt.data(), meanAt.data(), m_stream);
                if (!error.empty())
                    return internal(fmt::format("layer {}: GPU pyramid: {}", rec.layer, error));
                return Ok{};
            };
            if (heads.empty()) {
                if (auto st = launch(0, f.heads); !st) return st;
            } else {
                for (int head : heads) {
                    if (head < 0 || head >= f.heads) continue;
                    if (auto st = launch(head, 1); !st) return st;
                }
            }
        }
        // Only the causal tile bands travel: the writer stores causal tiles alone, and only of
        // the levels readers do not pool (the others' host bytes stay unread).
        const float* base = slot.levels.data_ptr<float>();
        const data::PyramidLevels levels{job.finestLevel, job.coarsestLevel};
        for (const auto& p : job.pyramids) {
            for (int i = 0; i < count; ++i) {
                if (!m_request.writer.storesLevel(levels, job.finestLevel + i)) continue;
                const int64_t side = kc::pyramidSide(n, job.finestLevel + i);
                for (std::size_t offset : {p.maxOffsets[i], p.meanOffsets[i]}) {
                    auto* dst = reinterpret_cast<float*>(host + offset);
                    const float* src = base + (offset - arrayBytes) / 4;
                    if (auto e = kc::copyCausalBandsToHostAsync(dst, src, f.heads, side,
                                                                data::kTileSide, m_stream);
                        !e.empty())
                        return cudaError(e);
                }
            }
        }
    }
    if (auto e = kc::recordEvent(slot.done, m_stream); !e.empty()) return cudaError(e);
    slot.device = rec.deviceFactors;
    return Ok{};
#endif
}

void DevicePipeline::writerLoop() {
#ifdef GATESCOPE_HAS_CUDA
    // The current CUDA device is per thread: this one works on the trace's GPU too.
    if (const auto index = cudaDeviceIndex(m_request.device)) kernels::cuda::useDevice(*index);
#endif
    for (;;) {
        Slot* slot = nullptr;
        bool skip = false;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty()) return;
            slot = m_queue.front();
            m_queue.pop_front();
            skip = m_abandoned || m_failure.has_value();
        }
        Status st = Ok{};
#ifdef GATESCOPE_HAS_CUDA
        if (auto e = kernels::cuda::synchronizeEvent(slot->done); !e.empty())
            st = internal(fmt::format("layer {}: GPU copy: {}", slot->job.layer, e));
#endif
        if (st && !skip) {
            try {
                st = m_write(slot->job);
            } catch (const std::exception& e) {
                st = internal(fmt::format("layer {}: {}", slot->job.layer, e.what()));
            }
        }
        slot->device.reset();  // the side stream is done with the layer's tensors
        {
            std::lock_guard lock(m_mutex);
            if (!st && !m_failure) m_failure = st.error();
            slot->busy = false;
            --m_pending;
        }
        m_changed.notify_all();
    }
}

}  // namespace gatescope::core
