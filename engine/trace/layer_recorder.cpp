#include "engine/trace/layer_recorder.h"

#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "kernels/cpu/pyramid_builder.h"

namespace gatescope::core {

namespace {

data::LayerHeader headerOf(const LayerAttention& a) {
    data::LayerHeader h;
    h.nHeads = a.heads;
    h.nKvHeads = a.kvHeads;
    h.headDim = a.headDim;
    h.valueDim = a.valueDim;
    h.nChannels = a.channels;
    h.scoreKind = toString(a.scoreKind);
    h.extras = a.extras;
    h.extras["scale"] = a.scale;
    h.extras["window"] = a.window;
    h.extras["has_decay"] = a.hasDecay;
    return h;
}

/// bfloat16 bits to float32 (exact: bf16 is the upper half of a float32).
void widenBf16(const std::byte* src, int64_t count, std::vector<float>& out) {
    out.resize(static_cast<std::size_t>(count));
    const auto* bits = reinterpret_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < count; ++i) {
        const uint32_t word = uint32_t{bits[i]} << 16;
        std::memcpy(&out[static_cast<std::size_t>(i)], &word, 4);
    }
}

/// `values` as bfloat16 bits when every one is a bfloat16 (its low 16 bits zero), else nothing.
std::optional<std::vector<uint16_t>> exactBf16Bits(const std::vector<float>& values) {
    std::vector<uint16_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        uint32_t word;
        std::memcpy(&word, &values[i], 4);
        if ((word & 0xFFFFu) != 0) return std::nullopt;
        bits[i] = static_cast<uint16_t>(word >> 16);
    }
    return bits;
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

LayerRecorder::~LayerRecorder() {
    if (m_pipeline) m_pipeline->abandon();
}

std::optional<Error> LayerRecorder::failure() const {
    {
        std::lock_guard lock(m_mutex);
        if (m_failure) return m_failure;
    }
    return m_pipeline ? m_pipeline->failure() : std::nullopt;
}

void LayerRecorder::setFailure(Error error) {
    std::lock_guard lock(m_mutex);
    if (!m_failure) m_failure = std::move(error);
}

bool LayerRecorder::wantsLayer(int layer) const {
    return !failure() && (m_layers.empty() || m_layers.count(layer));
}

bool LayerRecorder::wantsFactor(std::string_view name) const {
    // v is only stored (no tile source reads it); the others also feed the pyramids.
    if (name == "v") return m_request.storeFactors && m_request.storeValues;
    return m_request.storeFactors || m_request.storePyramids;
}

bool LayerRecorder::takesDeviceArrays() const {
#ifdef GATESCOPE_HAS_CUDA
    return true;
#else
    return false;
#endif
}

void LayerRecorder::onLayer(LayerRecord&& rec) {
    if (failure()) return;
    if (rec.deviceFactors && !rec.deviceFactors->arrays.empty()) {
        if (!m_pipeline) {
            m_pipeline = std::make_unique<DevicePipeline>(
                [this](const StagedLayer& staged) { return writeStaged(staged); }, m_request);
        }
        if (auto st = m_pipeline->submit(rec, rec.deviceFactors->n); !st) {
            setFailure(st.error());
            return;
        }
        if (m_onLayerDone) m_onLayerDone(rec.layer, 1.0);
        return;
    }
    // Host records: the writer must be ours alone again.
    if (m_pipeline) {
        if (auto st = m_pipeline->drain(); !st) {
            setFailure(st.error());
            return;
        }
    }
    if (auto status = record(rec); !status) {
        setFailure(status.error());
        return;
    }
    ++m_recorded;
    if (m_onLayerDone) m_onLayerDone(rec.layer, 1.0);
}

Status LayerRecorder::finish() {
    if (m_pipeline) {
        if (auto st = m_pipeline->drain(); !st) setFailure(st.error());
    }
    if (auto f = failure()) return *f;
    return Ok{};
}

Status LayerRecorder::record(LayerRecord& rec) {
    if (m_discard) return Ok{};
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
            // A bf16 forward's multiplied factors are stored as bfloat16, as the GPU pipeline
            // stores them; only where every value is one, so that nothing is lost.
            std::optional<std::vector<uint16_t>> bits;
            if (m_request.dtype == ComputeDType::BFloat16 && !data::schema::keepsFloat32(name))
                bits = exactBf16Bits(array.data);
            auto st = bits ? m_writer.writeFactorBf16(rec.layer, name, bits->data(), array.shape)
                           : m_writer.writeFactor(rec.layer, name, array.data.data(), array.shape);
            if (!st) return st;
        }
    }
    if (m_request.storePyramids) return writePyramids(rec);
    return Ok{};
}

Status LayerRecorder::writeStaged(const StagedLayer& s) {
    if (m_cancel && m_cancel->load()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
    if (m_discard) {
        ++m_recorded;
        return Ok{};
    }
    // The layer's arrays and pyramid levels go to the encoders as one write (storing one overlaps
    // encoding the next); everything they point into (the staged host buffer, `widened`) lives
    // until writeHeld returns, on every path.
    std::deque<std::vector<float>> widened;
    m_writer.holdWrites();
    Status queued = queueStaged(s, widened);
    Status held = m_writer.writeHeld();
    if (!queued) return queued;
    if (!held) return held;
    ++m_recorded;
    return Ok{};
}

Status LayerRecorder::queueStaged(const StagedLayer& s, std::deque<std::vector<float>>& widened) {
    if (auto st = m_writer.writeLayer(s.layer, headerOf(s.attention)); !st) return st;
    for (const auto& a : s.arrays) {
        int64_t count = 1;
        for (int64_t d : a.shape)
            count *= d;
        const float* data = reinterpret_cast<const float*>(s.host + a.offset);
        Status st = Ok{};
        if (a.bf16 && a.name != "log_retention" && !data::schema::keepsFloat32(a.name)) {
            // q, k, v of a bf16 forward: stored in the dtype the model computed them in.
            st = m_writer.writeFactorBf16(
                s.layer, a.name, reinterpret_cast<const uint16_t*>(s.host + a.offset), a.shape);
            if (!st) return st;
            continue;
        }
        if (a.bf16) {
            widenBf16(s.host + a.offset, count, widened.emplace_back());
            data = widened.back().data();
        }
        if (a.name == "log_retention") {
            if (a.shape.size() != 3)
                return Error{ErrorKind::Internal, "gates of rank other than 3", {}, {}};
            st = m_writer.writeGates(s.layer, data, static_cast<int>(a.shape[0]), a.shape[1],
                                     static_cast<int>(a.shape[2]));
        } else {
            st = m_writer.writeFactor(s.layer, a.name, data, a.shape);
        }
        if (!st) return st;
    }
    data::PyramidLevels levels;
    levels.finest = s.finestLevel;
    levels.coarsest = s.coarsestLevel;
    const int64_t n = m_writer.nTokens();
    const int heads = s.attention.heads;
    for (const auto& p : s.pyramids) {
        auto st = m_writer.createPyramid(s.layer, kernels::toString(p.kind), levels, heads);
        if (!st) return st;
    }
    for (auto kind : s.derivedMaps) {
        const std::string map = kernels::toString(kind);
        auto st = m_writer.createPyramid(s.layer, map, levels, heads);
        if (!st) return st;
        // The pipeline checked c on the GPU as the writer checks the same c here.
        if (!m_writer.derivesPyramid(s.layer, map))
            return Error{ErrorKind::Internal,
                         fmt::format("layer {}: the {} map was not built, but the writer does not "
                                     "derive it from log_decay_cumsum",
                                     s.layer, map),
                         {},
                         {}};
    }
    std::set<int> wanted(m_request.pyramidHeads.begin(), m_request.pyramidHeads.end());
    // All heads of a level in one call (every encoder thread busy), or the chosen ones one by one.
    auto writeLevels = [&](int first, int count) -> Status {
        for (const auto& p : s.pyramids) {
            const std::string map = kernels::toString(p.kind);
            for (int i = 0; i < levels.count(); ++i) {
                const int level = levels.finest + i;
                const int64_t side = data::levelSide(n, level);
                for (auto pool : {data::Pool::Max, data::Pool::Mean}) {
                    const auto offset = (pool == data::Pool::Max ? p.maxOffsets : p.meanOffsets)[i];
                    const float* src = reinterpret_cast<const float*>(s.host + offset) +
                                       int64_t{first} * side * side;
                    auto st =
                        m_writer.writePyramidLevel(s.layer, map, pool, level, first, src, count);
                    if (!st) return st;
                }
            }
        }
        return Ok{};
    };
    if (wanted.empty()) {
        if (auto st = writeLevels(0, heads); !st) return st;
    } else {
        for (int head : wanted)
            if (head >= 0 && head < heads)
                if (auto st = writeLevels(head, 1); !st) return st;
    }
    return Ok{};
}

}  // namespace gatescope::core
