// TraceReader at open: every dataset present is compared with the attributes (N, heads, channels,
// pyramid sides) and its storage with the file, before anything is read into memory. Datasets may
// be absent (Missing when read); present ones may not disagree.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "data/trace/trace_limits.h"
#include "data/trace/trace_reader.h"

namespace gatescope::data {
namespace {

/// Decoded chunks are held whole by HDF5; none of gatescope's is larger than a few MiB.
constexpr uint64_t kMaxChunkBytes = uint64_t{64} << 20;

}  // namespace

Status TraceReader::checkStorage(const h5::Dataset& dataset, const std::string& path) const {
    auto dims = dataset.dims();
    if (!dims) return dims.error();
    auto type = dataset.type();
    if (!type) return type.error();
    const H5T_class_t cls = type->typeClass();
    const uint64_t elementBytes = type->size();
    if (elementBytes == 0 || elementBytes > 16)
        return error(ErrorKind::Format, fmt::format("elements of {} bytes", elementBytes), path);
    // The extent in bytes, overflow-checked in 64 bits.
    uint64_t bytes = elementBytes;
    for (hsize_t d : *dims) {
        if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() / d)
            return error(ErrorKind::Format,
                         fmt::format("extent [{}] overflows 64 bits", fmt::join(*dims, ", ")),
                         path);
        bytes *= d;
    }
    auto chunk = dataset.chunkDims();
    if (!chunk) return chunk.error();
    if (!chunk->empty()) {
        uint64_t chunkBytes = elementBytes;
        for (hsize_t c : *chunk) {
            if (c == 0 || c > kMaxChunkBytes || chunkBytes * c > kMaxChunkBytes)
                return error(ErrorKind::Format,
                             fmt::format("chunks of [{}] elements are larger than the {} MiB "
                                         "gatescope decodes at once",
                                         fmt::join(*chunk, ", "), kMaxChunkBytes >> 20),
                             path);
            chunkBytes *= c;
        }
        return Ok{};
    }
    // Contiguous or compact: one block whose size the file states; it must lie within the file
    // and, for numbers, match the extent exactly.
    auto storage = dataset.storageSize();
    if (!storage) return storage.error();
    if (*storage > m_fileBytes)
        return error(
            ErrorKind::Format,
            fmt::format("claims {} bytes of storage in a file of {} bytes", *storage, m_fileBytes),
            path);
    if (*storage != 0 && *storage != bytes && cls != H5T_STRING && cls != H5T_VLEN)
        return error(ErrorKind::Format,
                     fmt::format("stores {} bytes for an extent of {} bytes", *storage, bytes),
                     path);
    return Ok{};
}

Status TraceReader::checkRootDatasets() const {
    auto lock = h5::lockLibrary();
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    const int64_t n = m_summary.nTokens;
    struct Table {
        const char* path;
        std::vector<int64_t> dims;
        Element element;
    };
    const Table tables[] = {{schema::kManifest, {}, Element::String},
                            {schema::kTokenIds, {n}, Element::Integer},
                            {schema::kTokenText, {n}, Element::String},
                            {schema::kTokenOffsets, {n, 2}, Element::Integer},
                            {schema::kSourceText, {}, Element::String},
                            {schema::kSourceBytes, {-1}, Element::Integer},
                            {schema::kLoss, {n}, Element::Float},
                            {schema::kTargetRank, {n}, Element::Integer},
                            {schema::kEntropy, {n}, Element::Float}};
    for (const Table& table : tables) {
        const std::string path = table.path;
        auto present = h5::exists(*root, path.substr(1));
        if (!present) return present.error();
        if (!*present) continue;
        auto ds = dataset(path, table.dims, table.element);
        if (!ds) return ds.error();
    }
    return Ok{};
}

Status TraceReader::checkLayerDatasets(LayerInfo& info) const {
    auto lock = h5::lockLibrary();
    const LayerHeader& h = info.header;
    const int64_t n = m_summary.nTokens;
    if (info.hasGates) {
        auto gates =
            dataset(schema::gatesPath(info.index), {h.nHeads, n, h.nChannels}, Element::Float);
        if (!gates) return gates.error();
    }
    for (const FactorInfo& f : info.factors) {
        const std::string path = schema::factorPath(info.index, f.name);
        const bool headsOk =
            f.shape.size() >= 2 && (f.shape[0] == h.nHeads || f.shape[0] == h.nKvHeads);
        const bool rankOk = f.shape.size() == 2 ||
                            (f.shape.size() == 3 && f.shape[2] >= 1 && f.shape[2] <= kMaxTraceDim);
        if (!headsOk || !rankOk || f.shape[1] != n)
            return error(
                ErrorKind::Shape,
                fmt::format("wrong shape: a factor is [H, N, D] or [H, N] with H = "
                            "n_heads ({}) or n_kv_heads ({}), N = n_tokens ({}) and D in "
                            "1..{}; found [{}]",
                            h.nHeads, h.nKvHeads, n, kMaxTraceDim, fmt::join(f.shape, ", ")),
                path);
        auto ds = dataset(path, f.shape, Element::Float, true);
        if (!ds) return ds.error();
    }
    auto root = h5::Group::root(*m_file);
    if (!root) return root.error();
    for (PyramidInfo& p : info.pyramids) {
        for (Pool pool : p.pools) {
            for (int level : p.levels) {
                const std::string path = schema::pyramidPath(info.index, p.map, pool, level);
                auto present = h5::exists(*root, path.substr(1));
                if (!present) return present.error();
                if (!*present) continue;  // levels may differ between pools
                const int64_t side = levelSide(n, level);
                auto ds = dataset(path, {-1, side, side}, Element::Float);
                if (!ds) return ds.error();
                auto dims = (*ds)->dims();
                if (!dims) return dims.error();
                const auto heads = static_cast<int64_t>((*dims)[0]);
                if (heads < 1 || heads > h.nHeads || (p.heads != 0 && heads != p.heads))
                    return error(
                        ErrorKind::Shape,
                        fmt::format("wrong shape: {} heads in a pyramid of a layer "
                                    "with n_heads = {}{}",
                                    heads, h.nHeads,
                                    p.heads ? fmt::format(" (other levels: {})", p.heads) : ""),
                        path);
                p.heads = static_cast<int>(heads);
            }
        }
    }
    return Ok{};
}

}  // namespace gatescope::data
