#include "data/h5/chunk_verify.h"

#include <zlib.h>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "data/h5/checked_driver.h"
#include "data/h5/filters.h"
#include "data/h5/handle.h"

namespace gatescope::data::h5 {

namespace {

struct Pipeline {
    uint64_t chunkBytes = 0;  ///< 0: not chunked, or no filters
    Dims chunk;
    bool deflate = false;
};

Result<Pipeline> pipelineOf(hid_t id, const Location& where) {
    hid_t dcpl = H5Dget_create_plist(id);
    if (dcpl < 0) return makeError(ErrorKind::Format, where, "cannot read creation properties");
    Handle owner(dcpl, where);
    Pipeline p;
    const int filters = H5Pget_nfilters(dcpl);
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || filters <= 0) return p;
    int compressors = 0;
    for (int f = 0; f < filters; ++f) {
        unsigned flags = 0, config = 0;
        size_t values = 0;
        const H5Z_filter_t filter =
            H5Pget_filter2(dcpl, unsigned(f), &flags, &values, nullptr, 0, nullptr, &config);
        if (filter == H5Z_FILTER_DEFLATE) p.deflate = true;
        if (filter == H5Z_FILTER_DEFLATE || filter == kLz4FilterId || filter == kZstdFilterId)
            ++compressors;
        else if (filter != H5Z_FILTER_SHUFFLE)
            return Error{ErrorKind::Format,
                         fmt::format("its chunks use filter {}; gatescope reads shuffle with one "
                                     "of deflate, lz4 and zstd",
                                     int(filter)),
                         where.file, where.object};
    }
    if (compressors != 1)
        return Error{ErrorKind::Format,
                     fmt::format("its chunks go through {} compression filters, not one "
                                 "(corrupt file?)",
                                 compressors),
                     where.file, where.object};
    p.chunk.resize(32);
    const int rank = H5Pget_chunk(dcpl, int(p.chunk.size()), p.chunk.data());
    hid_t type = H5Dget_type(id);
    if (rank <= 0 || type < 0)
        return makeError(ErrorKind::Format, where, "cannot read chunk shape");
    Handle typeOwner(type, where);
    p.chunk.resize(size_t(rank));
    p.chunkBytes = H5Tget_size(type);
    for (hsize_t extent : p.chunk) {
        if (extent == 0 || p.chunkBytes > UINT32_MAX / extent)  // HDF5 1.10 chunks are < 4 GiB
            return makeError(ErrorKind::Format, where, "its chunk shape cannot be read");
        p.chunkBytes *= extent;
    }
    return p;
}

/// Whether `raw` inflates to exactly `expected` bytes (deflate is the pipeline's one compressor;
/// shuffle keeps the size).
bool inflatesTo(const std::vector<uint8_t>& raw, uint64_t expected) {
    std::vector<uint8_t> out(std::min<uint64_t>(expected, uint64_t{1} << 20) + 1);
    z_stream stream{};
    stream.next_in = const_cast<Bytef*>(raw.data());
    stream.avail_in = static_cast<uInt>(raw.size());
    if (inflateInit(&stream) != Z_OK) return false;
    int rc = Z_OK;
    while (rc == Z_OK && stream.total_out <= expected) {
        stream.next_out = out.data();
        stream.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&stream, Z_NO_FLUSH);
        if (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) break;  // truncated
    }
    const bool ok = rc == Z_STREAM_END && stream.total_out == expected;
    inflateEnd(&stream);
    return ok;
}

/// Deflate chunks already inflated and found sound, by file serial number and chunk address.
std::unordered_set<std::string>& verifiedChunks() {
    static std::unordered_set<std::string> chunks;
    return chunks;
}

}  // namespace

Result<uint64_t> verifyChunks(hid_t id, const Dims& start, const Dims& count,
                              const Location& where) {
    auto pipeline = pipelineOf(id, where);
    if (!pipeline) return pipeline.error();
    const Pipeline& p = *pipeline;
    const size_t rank = p.chunk.size();
    if (p.chunkBytes == 0) return uint64_t{0};
    if (start.size() != rank || count.size() != rank)
        return makeError(ErrorKind::Internal, where, "block rank differs from the chunks'");
    if (std::find(count.begin(), count.end(), hsize_t{0}) != count.end()) return p.chunkBytes;
    H5O_info_t info;  // info.fileno: the serial number HDF5 gives each open of a file
    if (H5Oget_info2(id, &info, H5O_INFO_BASIC) < 0)
        return makeError(ErrorKind::Format, where, "cannot identify the dataset's file");
    const unsigned long fileNumber = info.fileno;
    const hid_t file = H5Iget_file_id(id);
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the dataset's file");
    Handle fileOwner(file, where);
    Dims first(rank), last(rank), at(rank), offset(rank);
    for (size_t d = 0; d < rank; ++d) {
        first[d] = at[d] = start[d] / p.chunk[d];
        last[d] = (start[d] + count[d] - 1) / p.chunk[d];
    }
    for (;;) {  // every chunk the block touches, last dimension fastest
        for (size_t d = 0; d < rank; ++d)
            offset[d] = at[d] * p.chunk[d];
        unsigned mask = 0;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        if (H5Dget_chunk_info_by_coord(id, offset.data(), &mask, &address, &size) < 0)
            return makeError(ErrorKind::Format, where, "cannot look up a chunk");
        if (address != HADDR_UNDEF && mask != 0)
            return Error{ErrorKind::Format,
                         "a chunk skips its filters (gatescope filters every chunk; corrupt "
                         "file?)",
                         where.file, where.object};
        const std::string key = fmt::format("{}:{}", fileNumber, address);
        if (address != HADDR_UNDEF && p.deflate && !verifiedChunks().count(key)) {
            hsize_t fileSize = 0;
            if (H5Fget_filesize(file, &fileSize) < 0 || size == 0 || size > fileSize ||
                address > fileSize - size)
                return makeError(ErrorKind::Format, where,
                                 "a chunk has an impossible size or lies past the file's end");
            // The stored bytes as the checking driver holds them (HDF5's own direct chunk read
            // trusts the chunk index further than this lookup did).
            std::vector<uint8_t> raw(size);
            if (!readCheckedBytes(file, address, raw.size(), raw.data())) {
                uint8_t first = 0;
                if (!readCheckedBytes(file, 0, 1, &first)) return p.chunkBytes;  // gatescope's own
                return makeError(ErrorKind::Format, where, "a chunk lies past the end of the file");
            }
            if (!inflatesTo(raw, p.chunkBytes))
                return Error{ErrorKind::Format,
                             fmt::format("a chunk does not inflate to the {} bytes of a chunk "
                                         "(corrupt file?)",
                                         p.chunkBytes),
                             where.file, where.object};
            verifiedChunks().insert(key);
        }
        size_t d = rank;
        while (d-- > 0) {
            if (++at[d] <= last[d]) break;
            at[d] = first[d];
        }
        if (d == size_t(-1)) break;
    }
    return p.chunkBytes;
}

}  // namespace gatescope::data::h5
