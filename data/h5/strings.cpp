#include "data/h5/strings.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <vector>

#include "data/h5/checked_driver.h"
#include "data/h5/string_values.h"

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
// Compact and chunked string datasets (gatescope writes neither) are left to the reads' own
// checks.
Status checkStoredLengths(const Dataset& dataset, size_t count, size_t maxTotal) {
    const Location& where = dataset.where();
    const haddr_t offset = H5Dget_offset(dataset.id());
    if (offset == HADDR_UNDEF) {
        H5Eclear2(H5E_DEFAULT);
        return Ok{};
    }
    const hid_t file = H5Iget_file_id(dataset.id());
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the dataset's file");
    Handle fileOwner(file, where);
    const hid_t fcpl = H5Fget_create_plist(file);
    if (fcpl < 0) return makeError(ErrorKind::Format, where, "cannot read creation properties");
    Handle fcplOwner(fcpl, where);
    size_t addressBytes = 0, lengthBytes = 0;
    if (auto rc = check(H5Pget_sizes(fcpl, &addressBytes, &lengthBytes), ErrorKind::Format, where,
                        "cannot read the file's address sizes");
        !rc)
        return rc;
    if (addressBytes == 0 || addressBytes > 8) return Ok{};
    const size_t descriptor = 4 + addressBytes + 4;
    std::vector<uint8_t> bytes(count * descriptor);
    if (!readCheckedBytes(file, offset, bytes.size(), bytes.data()))
        return Ok{};  // another driver, or not all there: HDF5's read reports it
    size_t total = 0;
    std::map<uint64_t, std::vector<uint8_t>> collections;  // by address, read once each
    auto corrupt = [&](const std::string& what) {
        return Error{ErrorKind::Format, what + " (corrupt file?)", where.file, where.object};
    };
    for (size_t i = 0; i < count; ++i) {
        const uint8_t* p = bytes.data() + i * descriptor;
        const uint64_t length =
            uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
        uint64_t address = 0;
        for (size_t b = 0; b < addressBytes; ++b)
            address |= uint64_t{p[4 + b]} << (8 * b);
        if (address == 0) continue;  // a null value
        total += length;
        if (length > kMaxStringBytes || total > maxTotal)
            return Error{ErrorKind::Format,
                         fmt::format("a stored string claims {} bytes, more than the {} bytes "
                                     "gatescope reads (corrupt file?)",
                                     length, length > kMaxStringBytes ? kMaxStringBytes : maxTotal),
                         where.file, where.object};
        const unsigned index = p[4 + addressBytes] | p[5 + addressBytes] << 8 |
                               p[6 + addressBytes] << 16 |
                               static_cast<unsigned>(p[7 + addressBytes]) << 24;
        auto found = collections.find(address);
        if (found == collections.end()) {
            uint8_t head[16];
            if (!readCheckedBytes(file, address, sizeof head, head) ||
                std::memcmp(head, "GCOL\x01", 5) != 0)
                return corrupt(
                    fmt::format("a stored string points at {}, not a global heap "
                                "collection",
                                address));
            uint64_t size = 0;
            for (int b = 7; b >= 0; --b)
                size = size << 8 | head[8 + b];
            if (size < sizeof head || size > kMaxStringBytes + 4096)
                return corrupt(
                    fmt::format("the global heap collection at {} claims {} bytes", address, size));
            std::vector<uint8_t> collection(size);
            std::string why;
            if (!readCheckedBytes(file, address, size, collection.data()))
                return corrupt(
                    fmt::format("the global heap collection at {} ({} bytes) runs past "
                                "the end of the file",
                                address, size));
            if (!globalHeapCollectionIsSound(collection.data(), collection.size(), why))
                return corrupt(
                    fmt::format("corrupt global heap collection at {}: {}", address, why));
            found = collections.emplace(address, std::move(collection)).first;
        }
        const int64_t stored =
            globalHeapObjectSize(found->second.data(), found->second.size(), index);
        if (stored < 0 || static_cast<uint64_t>(stored) != length)
            return corrupt(fmt::format(
                "a stored string of {} bytes names object {} of the global "
                "heap collection at {}, which {}",
                length, index, address,
                stored < 0 ? "holds no such object" : fmt::format("has {} bytes", stored)));
    }
    return Ok{};
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
    const hid_t id = dataset.id();
    return readStringValues(
        *stored, count, maxTotal,
        [id](hid_t memType, void* buffer) {
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
