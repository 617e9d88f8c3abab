#include "data/h5/chunk_codec.h"

#include <zlib.h>
#include <zstd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if GATESCOPE_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

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
void shuffleScalar(const unsigned char* in, unsigned char* out, size_t n, size_t elementSize,
                   size_t from) {
    for (size_t b = 0; b < elementSize; ++b)
        for (size_t i = from; i < n; ++i)
            out[b * n + i] = in[i * elementSize + b];
}

#if defined(__x86_64__)
// 16 elements a step: pshufb gathers each byte plane within a vector, unpacks transpose the
// vectors. The scalar loop ran at 0.7 GB/s a core, slower than ISA-L's deflate of the result.
__attribute__((target("ssse3"))) size_t shuffleSsse3(const unsigned char* in, unsigned char* out,
                                                     size_t n, size_t elementSize) {
    const size_t steps = n / 16;
    if (elementSize == 4) {
        const __m128i planes = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        for (size_t s = 0; s < steps; ++s) {
            const auto* from = reinterpret_cast<const __m128i*>(in + s * 64);
            const __m128i x0 = _mm_shuffle_epi8(_mm_loadu_si128(from + 0), planes);
            const __m128i x1 = _mm_shuffle_epi8(_mm_loadu_si128(from + 1), planes);
            const __m128i x2 = _mm_shuffle_epi8(_mm_loadu_si128(from + 2), planes);
            const __m128i x3 = _mm_shuffle_epi8(_mm_loadu_si128(from + 3), planes);
            const __m128i t0 = _mm_unpacklo_epi32(x0, x1), t1 = _mm_unpackhi_epi32(x0, x1);
            const __m128i t2 = _mm_unpacklo_epi32(x2, x3), t3 = _mm_unpackhi_epi32(x2, x3);
            unsigned char* to = out + s * 16;
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm_unpacklo_epi64(t0, t2));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to + n), _mm_unpackhi_epi64(t0, t2));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * n), _mm_unpacklo_epi64(t1, t3));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 3 * n), _mm_unpackhi_epi64(t1, t3));
        }
        return steps * 16;
    }
    if (elementSize == 2) {
        const __m128i planes = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        for (size_t s = 0; s < steps; ++s) {
            const auto* from = reinterpret_cast<const __m128i*>(in + s * 32);
            const __m128i x0 = _mm_shuffle_epi8(_mm_loadu_si128(from + 0), planes);
            const __m128i x1 = _mm_shuffle_epi8(_mm_loadu_si128(from + 1), planes);
            unsigned char* to = out + s * 16;
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm_unpacklo_epi64(x0, x1));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to + n), _mm_unpackhi_epi64(x0, x1));
        }
        return steps * 16;
    }
    return 0;
}
#endif

// Scratch of the calling thread, grown once to a chunk's size: two fresh zero-filled chunk-sized
// vectors per chunk cost more than ISA-L's deflate of an all-zero chunk.
unsigned char* scratch(std::vector<unsigned char>& buffer, size_t bytes) {
    if (buffer.size() < bytes) buffer.resize(bytes);
    return buffer.data();
}

const unsigned char* shuffled(const void* data, size_t bytes, size_t elementSize) {
    thread_local std::vector<unsigned char> buffer;
    const auto* in = static_cast<const unsigned char*>(data);
    unsigned char* out = scratch(buffer, bytes);
    const size_t n = elementSize > 1 ? bytes / elementSize : 0;
    size_t done = 0;
#if defined(__x86_64__)
    static const bool ssse3 = __builtin_cpu_supports("ssse3");
    if (ssse3 && n > 0) done = shuffleSsse3(in, out, n, elementSize);
#endif
    if (n > 0) shuffleScalar(in, out, n, elementSize, done);
    std::memcpy(out + n * elementSize, in + n * elementSize, bytes - n * elementSize);
    return out;
}

#if GATESCOPE_HAVE_ISAL
// ISA-L's level 1 as a zlib stream (header and Adler-32, what HDF5's deflate filter inflates):
// about the ratio of zlib's level 1 at 10x its speed (docs/benchmarks.md). Returns its size, or
// 0 when the stream would not fit `capacity` bytes (zlib then encodes).
size_t isalDeflate(const unsigned char* input, size_t bytes, unsigned char* out, size_t capacity) {
    thread_local std::vector<unsigned char> levelBuffer(ISAL_DEF_LVL1_DEFAULT);
    isal_zstream stream;
    isal_deflate_stateless_init(&stream);
    stream.end_of_stream = 1;
    stream.flush = NO_FLUSH;
    stream.gzip_flag = IGZIP_ZLIB;
    stream.level = 1;
    stream.level_buf = levelBuffer.data();
    stream.level_buf_size = static_cast<uint32_t>(levelBuffer.size());
    stream.next_in = const_cast<unsigned char*>(input);
    stream.avail_in = static_cast<uint32_t>(bytes);
    stream.next_out = out;
    stream.avail_out = static_cast<uint32_t>(std::min<size_t>(capacity, UINT32_MAX));
    if (isal_deflate_stateless(&stream) != COMP_OK) return 0;
    return stream.total_out;
}
#endif

Error failed(const char* what) {
    return Error{ErrorKind::Internal, std::string(what) + " failed to compress a chunk", {}, {}};
}

}  // namespace

bool deflatesThroughIsal() {
#if GATESCOPE_HAVE_ISAL
    return true;
#else
    return false;
#endif
}

Result<std::vector<unsigned char>> encodeChunk(const void* data, size_t bytes,
                                               const ChunkEncoding& encoding) {
    if (encoding.compression == Compression::None) {
        const auto* in = static_cast<const unsigned char*>(data);
        return std::vector<unsigned char>(in, in + bytes);
    }
    const unsigned char* input = shuffled(data, bytes, encoding.elementSize);
    thread_local std::vector<unsigned char> buffer;
    unsigned char* out = nullptr;
    size_t size = 0;
    switch (encoding.compression) {
        case Compression::None:
            break;
        case Compression::Deflate: {
            uLongf zlibSize = compressBound(static_cast<uLong>(bytes));
            out = scratch(buffer, zlibSize);
#if GATESCOPE_HAVE_ISAL
            if (encoding.level == 1 && bytes <= UINT32_MAX)
                size = isalDeflate(input, bytes, out, zlibSize);
            if (size > 0) break;
#endif
            const int level = std::clamp(encoding.level, 0, 9);
            if (compress2(out, &zlibSize, input, bytes, level) != Z_OK) return failed("deflate");
            size = zlibSize;
            break;
        }
        case Compression::Zstd: {
            const size_t bound = ZSTD_compressBound(bytes);
            out = scratch(buffer, bound);
            const int level = std::clamp(encoding.level, 1, std::min(22, ZSTD_maxCLevel()));
            size = ZSTD_compress(out, bound, input, bytes, level);
            if (ZSTD_isError(size)) return failed("zstd");
            break;
        }
        case Compression::Lz4: {
            const size_t bound = detail::lz4EncodedBound(bytes, 0);
            out = scratch(buffer, bound);
            size = detail::lz4Encode(input, bytes, 0, out, bound);
            if (size == 0) return failed("lz4");
            break;
        }
    }
    return std::vector<unsigned char>(out, out + size);
}

}  // namespace gatescope::data::h5
