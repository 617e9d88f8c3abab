// TraceWriter: layer groups, shared array helpers and gates.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "data/common/float16.h"
#include "data/h5/attribute.h"
#include "data/h5/chunk_writer.h"
#include "data/trace/nexus.h"
#include "data/trace/trace_writer.h"
#include "data/trace/writer_state.h"

namespace gatescope::data {

Result<TraceWriter::LayerState*> TraceWriter::layerState(int layer) {
    auto it = m_storage->layers.find(layer);
    if (it == m_storage->layers.end())
        return usage(fmt::format("layer {} is not declared; call writeLayer first", layer),
                     schema::layerPath(std::clamp(layer, 0, kMaxLayers - 1)));
    return &it->second;
}

Result<h5::Group> TraceWriter::openOrCreateGroup(const h5::Object& parent, std::string_view name) {
    auto found = h5::exists(parent, name);
    if (!found) return found.error();
    return *found ? h5::Group::open(parent, name) : h5::Group::create(parent, name);
}

Result<h5::Dataset> TraceWriter::createArray(const h5::Object& parent, std::string_view name,
                                             const std::vector<int64_t>& shape,
                                             ElementType elementType) {
    h5::Dims dims(shape.begin(), shape.end());
    h5::Dims chunk = dims;
    chunk[0] = 1;
    chunk[1] = std::min<hsize_t>(dims[1], kRowBlock);
    h5::Type type = elementType == ElementType::Float16    ? h5::Type::float16()
                    : elementType == ElementType::BFloat16 ? h5::Type::bfloat16()
                                                           : h5::Type::nativeFloat();
    auto dcpl = h5::PropertyList::chunkedDataset(chunk, m_options.compression,
                                                 m_options.compressionLevel, type, parent.where());
    if (!dcpl) return dcpl.error();
    return h5::Dataset::create(parent, name, type, dims, *dcpl);
}

h5::ChunkEncoding TraceWriter::encoding(size_t elementSize) const {
    return {m_options.compression, m_options.compressionLevel, elementSize};
}

Status TraceWriter::writeHeads(ArrayState& state, int firstHead, int heads, const void* data,
                               bool bf16Source) {
    const int64_t n = state.shape[1];
    int64_t width = 1;
    for (size_t i = 2; i < state.shape.size(); ++i)
        width *= state.shape[i];
    const int64_t rows = std::min(n, kRowBlock);  // createArray's chunk
    const int64_t chunks = (n + rows - 1) / rows;
    const size_t elementSize = state.type == ElementType::Float32 ? 4 : 2;
    if (state.type == ElementType::BFloat16 && !bf16Source)
        return Error{ErrorKind::Internal, "float32 data for a bfloat16 factor", m_tempPath.string(),
                     ""};
    const size_t count = static_cast<size_t>(n * width);  // values per head
    const size_t used = count * elementSize;
    const size_t chunkBytes = static_cast<size_t>(rows * width) * elementSize;
    const size_t perHead = static_cast<size_t>(chunks) * chunkBytes;
    // Data stored as it comes (float32, or bfloat16 bits into bfloat16) is encoded in place, only
    // a head's last, partial chunk copied; other data is converted into a padded copy of the
    // head: binary16 rounded here (to nearest even) rather than by HDF5's soft conversion, which
    // truncates.
    const bool asIs =
        bf16Source == (state.type == ElementType::BFloat16) && state.type != ElementType::Float16;
    const int64_t inPlace = asIs ? n / rows : 0;  // chunks encoded from `data` itself
    const size_t copied = perHead - static_cast<size_t>(inPlace) * chunkBytes;
    // Heads go to the encoder together, so that a call has chunks for every core (one head of a
    // 16k-token factor is 4 chunks); a group's copies stay under 256 MB (while writes are held,
    // every group's copies stay until writeHeld).
    const int group =
        static_cast<int>(std::clamp<size_t>((size_t{256} << 20) / std::max<size_t>(copied, 1), 1,
                                            static_cast<size_t>(std::max(heads, 1))));
    for (int first = 0; first < heads; first += group) {
        const int inGroup = std::min(group, heads - first);
        auto stored = std::make_unique_for_overwrite<unsigned char[]>(
            std::max<size_t>(copied * static_cast<size_t>(inGroup), 1));
        std::vector<h5::PlainChunk> list;
        for (int g = 0; g < inGroup; ++g) {
            const size_t source = static_cast<size_t>(first + g) * count;
            const auto* floats = static_cast<const float*>(data) + (bf16Source ? 0 : source);
            const auto* bits = static_cast<const uint16_t*>(data) + (bf16Source ? source : 0);
            const auto* in = bf16Source ? reinterpret_cast<const unsigned char*>(bits)
                                        : reinterpret_cast<const unsigned char*>(floats);
            // The head's bytes from chunk `inPlace` on, padded with zeros to whole chunks.
            unsigned char* copy = stored.get() + static_cast<size_t>(g) * copied;
            const size_t skipped = static_cast<size_t>(inPlace) * chunkBytes;
            if (asIs) {
                std::memcpy(copy, in + skipped, used - skipped);
            } else if (bf16Source && state.type == ElementType::Float32) {
                auto* out = reinterpret_cast<uint32_t*>(copy);
                for (size_t i = 0; i < count; ++i)
                    out[i] = uint32_t{bits[i]} << 16;  // exact: bf16 is the upper half of a float32
            } else {
                // binary16, from bfloat16 bits or float32
                auto* halves = reinterpret_cast<uint16_t*>(copy);
                for (size_t i = 0; i < count; ++i) {
                    float value;
                    if (bf16Source) {
                        const uint32_t word = uint32_t{bits[i]} << 16;
                        std::memcpy(&value, &word, 4);
                    } else {
                        value = floats[i];
                    }
                    halves[i] = floatToHalf(value);
                }
            }
            std::memset(copy + (used - skipped), 0, copied - (used - skipped));
            for (int64_t c = 0; c < chunks; ++c) {
                h5::Dims offset(state.shape.size(), 0);
                offset[0] = static_cast<hsize_t>(firstHead + first + g);
                offset[1] = static_cast<hsize_t>(c * rows);
                const unsigned char* chunk =
                    c < inPlace ? in + c * chunkBytes : copy + (c - inPlace) * chunkBytes;
                list.push_back({std::move(offset), chunk});
            }
        }
        if (auto rc = store({&state.dataset, encoding(elementSize), chunkBytes, std::move(list)},
                            std::move(stored));
            !rc)
            return rc;
    }
    return Ok{};
}

Status TraceWriter::writeLayer(int layer, const LayerHeader& header) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (layer < 0 || layer >= kMaxLayers)
        return usage(fmt::format("layer index {} is outside 0..{}", layer, kMaxLayers - 1));
    std::string path = schema::layerPath(layer);
    if (m_storage->layers.count(layer)) return usage("layer is already written", path);
    if (header.nHeads < 1 || header.nKvHeads < 1 || header.headDim < 1 || header.valueDim < 0 ||
        header.nChannels < 1)
        return usage(fmt::format("bad layer header: n_heads {}, n_kv_heads {}, head_dim {}, "
                                 "value_dim {}, n_channels {} (all >= 1, value_dim >= 0)",
                                 header.nHeads, header.nKvHeads, header.headDim, header.valueDim,
                                 header.nChannels),
                     path);
    if (header.scoreKind.empty() || !(header.extras.is_object() || header.extras.is_null()))
        return usage("bad layer header: score_kind must be set and extras a JSON object", path);
    auto layers = h5::Group::open(m_storage->root, "layers");
    if (!layers) return fail(layers.error());
    auto group = h5::Group::create(*layers, schema::layerName(layer));
    if (!group) return fail(group.error());
    auto rc = h5::writeAttribute(*group, "n_heads", int64_t{header.nHeads});
    if (rc) rc = h5::writeAttribute(*group, "n_kv_heads", int64_t{header.nKvHeads});
    if (rc) rc = h5::writeAttribute(*group, "head_dim", int64_t{header.headDim});
    if (rc) rc = h5::writeAttribute(*group, "value_dim", int64_t{header.valueDim});
    if (rc) rc = h5::writeAttribute(*group, "n_channels", int64_t{header.nChannels});
    if (rc) rc = h5::writeAttribute(*group, "score_kind", header.scoreKind);
    if (rc)
        rc =
            h5::writeAttribute(*group, "extras",
                               (header.extras.is_null() ? nlohmann::json::object() : header.extras)
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (!rc) return fail(rc.error());
    LayerState state;
    state.header = header;
    if (state.header.extras.is_null()) state.header.extras = nlohmann::json::object();
    state.group = std::move(*group);
    m_storage->layers.emplace(layer, std::move(state));
    return Ok{};
}

Status TraceWriter::declareGates(int layer, int heads, int channels) {
    auto lock = h5::lockLibrary();
    if (auto rc = usable(); !rc) return rc;
    if (m_nTokens == 0) return usage("write the tokens before gates");
    auto state = layerState(layer);
    if (!state) return state.error();
    LayerState& l = **state;
    std::string path = schema::gatesPath(layer);
    if (l.gates) return usage("gates are already declared", path);
    if (heads != l.header.nHeads || channels != l.header.nChannels)
        return Error{
            ErrorKind::Shape,
            fmt::format("gates must be [n_heads = {}, N, n_channels = {}], got [{}, N, {}]",
                        l.header.nHeads, l.header.nChannels, heads, channels),
            m_tempPath.string(), path};
    auto group = h5::Group::create(l.group, "gates");
    if (!group) return fail(group.error());
    std::vector<int64_t> shape{heads, m_nTokens, channels};
    auto dataset = createArray(*group, "log_retention", shape, ElementType::Float32);
    if (!dataset) return fail(dataset.error());
    auto rc = nexus::markData(*group, "log_retention", 3);
    if (rc) rc = nexus::describe(*dataset, "log retention per token [head, token, channel]");
    if (!rc) return fail(rc.error());
    l.gates =
        std::make_unique<ArrayState>(ArrayState{std::move(*dataset), shape, ElementType::Float32});
    return Ok{};
}

Status TraceWriter::writeGatesHead(int layer, int head, const float* data) {
    if (auto rc = usable(); !rc) return rc;
    auto state = layerState(layer);
    if (!state) return state.error();
    ArrayState* gates = (*state)->gates.get();
    if (!gates)
        return usage("gates are not declared; call declareGates first", schema::gatesPath(layer));
    if (head < 0 || head >= gates->shape[0] || !data)
        return usage(
            fmt::format("head {} is outside 0..{} (or data is null)", head, gates->shape[0] - 1),
            schema::gatesPath(layer));
    auto rc = writeHeads(*gates, head, 1, data);
    if (!rc) return fail(rc.error());
    return Ok{};
}

Status TraceWriter::writeGates(int layer, const float* data, int heads, int64_t n, int channels) {
    if (n != m_nTokens && m_nTokens > 0)
        return Error{ErrorKind::Shape,
                     fmt::format("gates have {} tokens, the trace has N = {}", n, m_nTokens),
                     m_tempPath.string(), schema::gatesPath(layer)};
    auto rc = declareGates(layer, heads, channels);
    if (!rc) return rc;
    if (!data) return usage("gates data is null", schema::gatesPath(layer));
    // Every head in one call: the encoder gets chunks for all its threads.
    if (rc = writeHeads(*(*layerState(layer))->gates, 0, heads, data); !rc) return fail(rc.error());
    return Ok{};
}

}  // namespace gatescope::data
