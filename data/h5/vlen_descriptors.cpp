#include "data/h5/vlen_descriptors.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "data/h5/checked_driver.h"
#include "data/h5/string_values.h"

namespace gatescope::data::h5 {

Result<OffsetSizes> fileOffsetSizes(hid_t file, const Location& where) {
    const hid_t fcpl = H5Fget_create_plist(file);
    if (fcpl < 0) return makeError(ErrorKind::Format, where, "cannot read creation properties");
    Handle fcplOwner(fcpl, where);
    OffsetSizes sizes;
    if (auto rc = check(H5Pget_sizes(fcpl, &sizes.offsets, &sizes.lengths), ErrorKind::Format,
                        where, "cannot read the file's address sizes");
        !rc)
        return rc.error();
    return sizes;
}

Result<size_t> fileAddressBytes(hid_t file, const Location& where) {
    auto sizes = fileOffsetSizes(file, where);
    if (!sizes) return sizes.error();
    return sizes->offsets > 8 ? size_t{0} : sizes->offsets;
}

Status checkStringDescriptors(hid_t file, const uint8_t* bytes, size_t count, size_t addressBytes,
                              size_t maxTotal, const Location& where) {
    const size_t descriptor = descriptorBytes(addressBytes);
    size_t total = 0;
    std::map<uint64_t, std::vector<uint8_t>> collections;  // by address, read once each
    auto corrupt = [&](const std::string& what) {
        return Error{ErrorKind::Format, what + " (corrupt file?)", where.file, where.object};
    };
    for (size_t i = 0; i < count; ++i) {
        const uint8_t* p = bytes + i * descriptor;
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

}  // namespace gatescope::data::h5
