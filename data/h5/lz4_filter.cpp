// The lz4 filter (ID 32004). Chunk layout, as in the HDF5 LZ4 plugin (and hdf5plugin's LZ4): a
// 12-byte header (uint64 big-endian decoded size, uint32 big-endian block size), then per block a
// uint32 big-endian compressed size followed by the LZ4 block; a block whose compressed size equals
// its decoded size is stored raw. cd_values[0], when present and non-zero, is the block size.
#include <hdf5.h>
#include <lz4.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "data/h5/filters.h"

namespace gatescope::data::h5::detail {
namespace {

constexpr uint64_t kDefaultBlockBytes = uint64_t{1} << 30;

uint64_t loadBigEndian(const unsigned char* p, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value = (value << 8) | p[i];
    return value;
}

void storeBigEndian(unsigned char* p, uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i, value >>= 8)
        p[i] = static_cast<unsigned char>(value);
}

size_t decode(size_t nbytes, size_t* bufSize, void** buf) {
    const auto* in = static_cast<const unsigned char*>(*buf);
    if (nbytes < 12) return 0;
    uint64_t total = loadBigEndian(in, 8);
    uint64_t blockBytes = loadBigEndian(in + 8, 4);
    if (total == 0 || blockBytes == 0 || total > (uint64_t{1} << 40)) return 0;
    if (const uint64_t expected = ExpectedChunkBytes::current(); expected != 0 && total != expected)
        return 0;  // a chunk of another size than its dataset's: refused before allocating
    if (blockBytes > total) blockBytes = total;
    auto* out = static_cast<char*>(H5allocate_memory(total, false));
    if (!out) return 0;
    size_t pos = 12;
    uint64_t done = 0;
    while (done < total) {
        uint64_t want = total - done < blockBytes ? total - done : blockBytes;
        if (pos + 4 > nbytes) break;
        uint64_t stored = loadBigEndian(in + pos, 4);
        pos += 4;
        if (stored > nbytes - pos) break;
        if (stored == want) {
            std::memcpy(out + done, in + pos, want);
        } else {
            // The safe decoder: a corrupt chunk must fail, not overrun (the reference uses _fast).
            int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + pos), out + done,
                                          static_cast<int>(stored), static_cast<int>(want));
            if (got < 0 || static_cast<uint64_t>(got) != want) break;
        }
        pos += stored;
        done += want;
    }
    if (done != total) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *bufSize = total;
    return total;
}

}  // namespace

uint64_t lz4BlockBytes(size_t bytes, uint64_t blockBytes) {
    if (blockBytes == 0) blockBytes = kDefaultBlockBytes;
    return std::min<uint64_t>(blockBytes, std::max<size_t>(bytes, 1));
}

size_t lz4EncodedBound(size_t bytes, uint64_t blockBytes) {
    const size_t blocks = bytes == 0 ? 0 : (bytes - 1) / lz4BlockBytes(bytes, blockBytes) + 1;
    return 12 + blocks * 4 + static_cast<size_t>(LZ4_compressBound(static_cast<int>(bytes)));
}

size_t lz4Encode(const void* data, size_t bytes, uint64_t blockBytes, unsigned char* out,
                 size_t capacity) {
    if (bytes == 0 || bytes > static_cast<size_t>(INT32_MAX) ||
        capacity < lz4EncodedBound(bytes, blockBytes))
        return 0;
    blockBytes = lz4BlockBytes(bytes, blockBytes);
    const auto* in = static_cast<const char*>(data);
    storeBigEndian(out, bytes, 8);
    storeBigEndian(out + 8, blockBytes, 4);
    size_t pos = 12;
    for (size_t done = 0; done < bytes;) {
        size_t want = bytes - done < blockBytes ? bytes - done : blockBytes;
        int packed =
            LZ4_compress_default(in + done, reinterpret_cast<char*>(out + pos + 4),
                                 static_cast<int>(want), static_cast<int>(capacity - pos - 4));
        if (packed <= 0) return 0;
        size_t stored = static_cast<size_t>(packed);
        if (stored >= want) {
            stored = want;
            std::memcpy(out + pos + 4, in + done, want);
        }
        storeBigEndian(out + pos, stored, 4);
        pos += 4 + stored;
        done += want;
    }
    return pos;
}

namespace {

size_t encode(size_t cdCount, const unsigned cdValues[], size_t nbytes, size_t* bufSize,
              void** buf) {
    const uint64_t blockBytes = cdCount > 0 ? cdValues[0] : 0;
    const size_t capacity = lz4EncodedBound(nbytes, blockBytes);
    auto* out = static_cast<unsigned char*>(H5allocate_memory(capacity, false));
    if (!out) return 0;
    const size_t size = lz4Encode(*buf, nbytes, blockBytes, out, capacity);
    if (size == 0) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *bufSize = capacity;
    return size;
}

}  // namespace

size_t lz4Filter(unsigned flags, size_t cdCount, const unsigned cdValues[], size_t nbytes,
                 size_t* bufSize, void** buf) {
    if (flags & H5Z_FLAG_REVERSE) return decode(nbytes, bufSize, buf);
    return encode(cdCount, cdValues, nbytes, bufSize, buf);
}

}  // namespace gatescope::data::h5::detail
