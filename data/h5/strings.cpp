#include "data/h5/strings.h"

#include <fmt/format.h>

#include <vector>

#include "data/h5/checked_driver.h"
#include "data/h5/chunk_verify.h"
#include "data/h5/filters.h"
#include "data/h5/string_values.h"
#include "data/h5/vlen_descriptors.h"

namespace gatescope::data::h5 {
namespace {

// HDF5 1.10 converts a variable-length value by allocating the length its stored descriptor
// claims (up to 4 GiB) before it reads the value from the global heap: a forged length in an
// 85 KB trace made `info` take 2.5 GB before failing (found by fuzz/trace_reader_fuzz). For a
// contiguous dataset read through the checking driver, the descriptors (4-byte length, heap
// address, 4-byte index) are read here first and their lengths held to what gatescope reads.
// Each must also name an object of its global-heap collection with exactly that length: HDF5's
// H5HG_read indexes the collection's object table with the stored index unchecked (a forged one
// crashed it) and copies the object's own size into the buffer sized by the descriptor.
// Compact and chunked string datasets (gatescope writes neither) are refused in files read
// through the checking driver: their descriptors could not be checked before HDF5 trusts them.
Status checkStoredLengths(const Dataset& dataset, size_t count, size_t maxTotal) {
    const Location& where = dataset.where();
    const hid_t file = H5Iget_file_id(dataset.id());
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the dataset's file");
    Handle fileOwner(file, where);
    const haddr_t offset = H5Dget_offset(dataset.id());
    if (offset == HADDR_UNDEF) {
        H5Eclear2(H5E_DEFAULT);
        auto chunk = dataset.chunkDims();
        if (!chunk) return chunk.error();
        uint8_t first = 0;
        if (!chunk->empty() && readCheckedBytes(file, 0, 1, &first))
            return Error{ErrorKind::Format,
                         "variable-length strings stored in chunks (gatescope stores them "
                         "contiguous; corrupt file?)",
                         where.file, where.object};
        return Ok{};
    }
    auto addressBytes = fileAddressBytes(file, where);
    if (!addressBytes) return addressBytes.error();
    if (*addressBytes == 0) return Ok{};
    std::vector<uint8_t> bytes(count * descriptorBytes(*addressBytes));
    if (!readCheckedBytes(file, offset, bytes.size(), bytes.data()))
        return Ok{};  // another driver, or not all there: HDF5's read reports it
    return checkStringDescriptors(file, bytes.data(), count, *addressBytes, maxTotal, where);
}

Result<std::vector<std::string>> readAll(const Dataset& dataset, size_t count, size_t maxTotal) {
    auto type = dataset.type();
    if (!type) return type.error();
    const Location& where = dataset.where();
    auto stored = inspectStringType(*type, kMaxStringBytes, where);
    if (!stored) return stored.error();
    // Variable-length values cost at least a pointer each before HDF5 fills them in.
    if (count > maxTotal / sizeof(char*))
        return Error{ErrorKind::Format,
                     fmt::format("{} strings are more than gatescope reads at once", count),
                     where.file, where.object};
    if (stored->variable) {
        if (auto st = checkStoredLengths(dataset, count, maxTotal); !st) return st.error();
    }
    auto chunkBytes = verifyChunks(dataset.id(), {0}, {count}, where);
    if (!chunkBytes) return chunkBytes.error();
    const hid_t id = dataset.id();
    return readStringValues(
        *stored, count, maxTotal,
        [id, bytes = *chunkBytes](hid_t memType, void* buffer) {
            ExpectedChunkBytes expected(bytes);
            return H5Dread(id, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
        },
        where);
}

}  // namespace

Result<std::vector<std::string>> readStrings(const Dataset& dataset) {
    auto lock = lockLibrary();
    auto dims = dataset.dims();
    if (!dims) return dims.error();
    if (dims->size() != 1)
        return Error{ErrorKind::Shape, "expected a 1-D string dataset", dataset.where().file,
                     dataset.where().object};
    return readAll(dataset, (*dims)[0], kMaxStringArrayBytes);
}

Result<std::string> readScalarString(const Dataset& dataset) {
    auto lock = lockLibrary();
    hid_t space = H5Dget_space(dataset.id());
    if (space < 0) return makeError(ErrorKind::Format, dataset.where(), "cannot get dataspace");
    Handle owner(space, dataset.where());
    if (H5Sget_simple_extent_type(space) != H5S_SCALAR)
        return Error{ErrorKind::Shape, "expected a scalar string dataset", dataset.where().file,
                     dataset.where().object};
    auto values = readAll(dataset, 1, kMaxStringBytes);
    if (!values) return values.error();
    return std::move(values->front());
}

}  // namespace gatescope::data::h5
