#include "data/h5/group_heap_check.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "data/h5/checked_driver.h"
#include "data/h5/handle.h"
#include "data/h5/object_header.h"
#include "data/h5/raw_fields.h"
#include "data/h5/vlen_descriptors.h"

namespace gatescope::data::h5 {

namespace {
constexpr unsigned kSymbolTable = 0x0011;
}  // namespace

std::optional<LocalHeap> readLocalHeap(hid_t file, uint64_t address, size_t offsets,
                                       size_t lengths) {
    std::vector<uint8_t> header(8 + 2 * lengths + offsets);
    if (!readCheckedBytes(file, address, header.size(), header.data()) ||
        std::memcmp(header.data(), "HEAP", 4) != 0)
        return std::nullopt;
    return LocalHeap{littleEndian(&header[8], lengths),
                     littleEndian(&header[8 + 2 * lengths], offsets)};
}

Status checkGroupHeap(hid_t file, uint64_t address, const Location& where) {
    auto sizes = fileOffsetSizes(file, where);
    if (!sizes) return sizes.error();
    const size_t offsets = sizes->offsets, lengths = sizes->lengths;
    if (offsets == 0 || offsets > 8 || lengths == 0 || lengths > 8) return Ok{};
    auto messages = readObjectHeader(file, address, offsets, lengths, where);
    if (!messages) return messages.error();
    if (!*messages) return Ok{};
    hsize_t fileSize = 0;
    if (H5Fget_filesize(file, &fileSize) < 0)
        return makeError(ErrorKind::Format, where, "cannot get the file's size");
    for (const auto& message : **messages) {
        if (message.type != kSymbolTable) continue;
        const auto& m = message.data;
        const auto corrupt = [&](const std::string& what) {
            return Error{ErrorKind::Format, what + " (corrupt file?)", where.file, where.object};
        };
        if (m.size() < 2 * offsets) return corrupt("its symbol table message is cut short");
        const uint64_t heap = littleEndian(&m[offsets], offsets);
        const auto local = readLocalHeap(file, heap, offsets, lengths);
        if (!local) return corrupt("its link names are not in a local heap");
        const uint64_t size = local->dataSize, data = local->dataAddress;
        if (size > fileSize || data > fileSize - size)
            return corrupt(
                fmt::format("its local heap of {} bytes at {} lies past the end of the "
                            "file ({} bytes)",
                            size, data, fileSize));
    }
    return Ok{};
}

Status checkGroupHeap(hid_t group, const Location& where) {
    H5O_info_t info;
    if (H5Oget_info2(group, &info, H5O_INFO_BASIC) < 0)
        return makeError(ErrorKind::Format, where, "cannot read the object header");
    if (info.type != H5O_TYPE_GROUP) return Ok{};
    const hid_t file = H5Iget_file_id(group);
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the object's file");
    Handle owner(file, where);
    return checkGroupHeap(file, info.addr, where);
}

}  // namespace gatescope::data::h5
