#include "data/h5/chunk_codec.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gatescope::data::h5 {
namespace detail {
// lz4_filter.cpp: the filter's chunk layout; blockBytes 0 is its default (one block here).
size_t lz4EncodedBound(size_t bytes, uint64_t blockBytes);
size_t lz4Encode(const void* data, size_t bytes, uint64_t blockBytes, unsigned char* out,
                 size_t capacity);
}  // namespace detail

namespace {

// HDF5's shuffle: byte b of element i goes to out[b * n + i]; trailing bytes stay in place.
std::vector<unsigned char> shuffled(const void* data, size_t bytes, size_t elementSize) {
    const auto* in = static_cast<const unsigned char*>(data);
    std::vector<unsigned char> out(bytes);
    const size_t n = elementSize > 1 ? bytes / elementSize : 0;
    for (size_t b = 0; b < elementSize && n > 0; ++b)
        for (size_t i = 0; i < n; ++i)
            out[b * n + i] = in[i * elementSize + b];
    std::memcpy(out.data() + n * elementSize, in + n * elementSize, bytes - n * elementSize);
    return out;
}

Error failed(const char* what) {
    return Error{ErrorKind::Internal, std::string(what) + " failed to compress a chunk", {}, {}};
}

}  // namespace

Result<std::vector<unsigned char>> encodeChunk(const void* data, size_t bytes,
                                               const ChunkEncoding& encoding) {
    if (encoding.compression == Compression::None) {
        const auto* in = static_cast<const unsigned char*>(data);
        return std::vector<unsigned char>(in, in + bytes);
    }
    std::vector<unsigned char> chunk;
    std::vector<unsigned char> input = shuffled(data, bytes, encoding.elementSize);
    switch (encoding.compression) {
        case Compression::None:
            break;
        case Compression::Deflate: {
            uLongf size = compressBound(static_cast<uLong>(bytes));
            chunk.resize(size);
            const int level = std::clamp(encoding.level, 0, 9);
            if (compress2(chunk.data(), &size, input.data(), bytes, level) != Z_OK)
                return failed("deflate");
            chunk.resize(size);
            break;
        }
        case Compression::Zstd: {
            chunk.resize(ZSTD_compressBound(bytes));
            const int level = std::clamp(encoding.level, 1, std::min(22, ZSTD_maxCLevel()));
            const size_t size =
                ZSTD_compress(chunk.data(), chunk.size(), input.data(), bytes, level);
            if (ZSTD_isError(size)) return failed("zstd");
            chunk.resize(size);
            break;
        }
        case Compression::Lz4: {
            chunk.resize(detail::lz4EncodedBound(bytes, 0));
            const size_t size =
                detail::lz4Encode(input.data(), bytes, 0, chunk.data(), chunk.size());
            if (size == 0) return failed("lz4");
            chunk.resize(size);
            break;
        }
    }
    return chunk;
}

}  // namespace gatescope::data::h5
