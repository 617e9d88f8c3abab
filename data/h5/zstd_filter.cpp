// The zstd filter (ID 32015). Chunk layout, as in HDF5Plugin-Zstandard: the chunk is exactly one
// zstd frame (with its content size); cd_values[0], when present, is the compression level.
#include <hdf5.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>

#include "data/h5/filters.h"

namespace gatescope::data::h5::detail {

size_t zstdFilter(unsigned flags, size_t cdCount, const unsigned cdValues[], size_t nbytes,
                  size_t* bufSize, void** buf) {
    if (flags & H5Z_FLAG_REVERSE) {
        unsigned long long size = ZSTD_getFrameContentSize(*buf, nbytes);
        if (size == ZSTD_CONTENTSIZE_ERROR) return 0;
        const uint64_t expected = ExpectedChunkBytes::current();
        if (expected != 0 && size != ZSTD_CONTENTSIZE_UNKNOWN && size != expected) return 0;
        if (size == ZSTD_CONTENTSIZE_UNKNOWN) {
            // Frames written by streaming encoders carry no size: decode by streaming.
            ZSTD_DStream* stream = ZSTD_createDStream();
            size_t capacity = expected != 0 ? expected : nbytes * 4 + 4096;
            auto* out = static_cast<char*>(H5allocate_memory(capacity, false));
            ZSTD_inBuffer in{*buf, nbytes, 0};
            ZSTD_outBuffer dst{out, capacity, 0};
            size_t rc = 1;
            while (out && rc != 0) {
                rc = ZSTD_decompressStream(stream, &dst, &in);
                if (ZSTD_isError(rc)) break;
                if (rc != 0 && in.pos == in.size && dst.pos < dst.size) break;  // truncated
                if (dst.pos == dst.size) {
                    if (expected != 0) break;  // more than the chunk holds
                    capacity *= 2;
                    out = static_cast<char*>(H5resize_memory(out, capacity));
                    dst = ZSTD_outBuffer{out, capacity, dst.pos};
                }
            }
            ZSTD_freeDStream(stream);
            if (!out || rc != 0 || (expected != 0 && dst.pos != expected)) {
                if (out) H5free_memory(out);
                return 0;
            }
            H5free_memory(*buf);
            *buf = out;
            *bufSize = capacity;
            return dst.pos;
        }
        void* out = H5allocate_memory(size, false);
        if (!out) return 0;
        size_t got = ZSTD_decompress(out, size, *buf, nbytes);
        if (ZSTD_isError(got) || got != size) {
            H5free_memory(out);
            return 0;
        }
        H5free_memory(*buf);
        *buf = out;
        *bufSize = size;
        return size;
    }
    int level = cdCount > 0 ? static_cast<int>(cdValues[0]) : ZSTD_CLEVEL_DEFAULT;
    if (level < 1) level = 1;
    if (level > ZSTD_maxCLevel()) level = ZSTD_maxCLevel();
    size_t capacity = ZSTD_compressBound(nbytes);
    void* out = H5allocate_memory(capacity, false);
    if (!out) return 0;
    size_t written = ZSTD_compress(out, capacity, *buf, nbytes, level);
    if (ZSTD_isError(written)) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *bufSize = capacity;
    return written;
}

}  // namespace gatescope::data::h5::detail
