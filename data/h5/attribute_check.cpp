#include "data/h5/attribute_check.h"

#include <string>

#include <fmt/format.h>

#include "data/h5/object_header.h"
#include "data/h5/raw_fields.h"
#include "data/h5/string_values.h"
#include "data/h5/vlen_descriptors.h"

namespace gatescope::data::h5 {

namespace {

constexpr unsigned kAttributeMessage = 0x000C;
constexpr unsigned kSharedMessage = 0x02;  // the message's data is a reference to a shared one
constexpr uint64_t kMaxElements = uint64_t{1} << 24;

size_t pad8(size_t n) {
    return (n + 7) / 8 * 8;
}

/// The parts of one attribute message: [begin, begin + size) of its name, datatype, dataspace,
/// and where its data starts.
struct Layout {
    size_t name = 0, nameSize = 0, type = 0, typeSize = 0, space = 0, spaceSize = 0, data = 0;
    bool sharedType = false, sharedSpace = false;
};

bool layoutOf(const std::vector<uint8_t>& m, Layout& l) {
    if (m.size() < 8) return false;
    const unsigned version = m[0];
    l.nameSize = littleEndian(&m[2], 2);
    l.typeSize = littleEndian(&m[4], 2);
    l.spaceSize = littleEndian(&m[6], 2);
    if (l.nameSize == 0) return false;
    if (version == 1) {
        l.name = 8;
        l.type = l.name + pad8(l.nameSize);
        l.space = l.type + pad8(l.typeSize);
        l.data = l.space + pad8(l.spaceSize);
    } else if (version == 2 || version == 3) {
        l.sharedType = m[1] & 0x01;
        l.sharedSpace = m[1] & 0x02;
        l.name = version == 3 ? 9 : 8;
        l.type = l.name + l.nameSize;
        l.space = l.type + l.typeSize;
        l.data = l.space + l.spaceSize;
    } else {
        return false;
    }
    return l.data <= m.size();
}

}  // namespace

Status checkAttributeMessages(const Object& owner) {
    const Location& where = owner.where();
    H5O_info_t info;
    if (H5Oget_info2(owner.id(), &info, H5O_INFO_BASIC) < 0)
        return makeError(ErrorKind::Format, where, "cannot read the object header");
    const hid_t file = H5Iget_file_id(owner.id());
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the object's file");
    Handle fileOwner(file, where);
    auto sizes = fileOffsetSizes(file, where);
    if (!sizes) return sizes.error();
    const size_t offsets = sizes->offsets, lengths = sizes->lengths;
    if (offsets == 0 || offsets > 8 || lengths == 0 || lengths > 8) return Ok{};
    auto messages = readObjectHeader(file, info.addr, offsets, lengths, where);
    if (!messages) return messages.error();
    if (!*messages) return Ok{};
    for (const auto& message : **messages) {
        if (message.type != kAttributeMessage || (message.flags & kSharedMessage)) continue;
        const auto& m = message.data;
        Layout l;
        if (!layoutOf(m, l))
            return Error{ErrorKind::Format,
                         fmt::format("an attribute message of {} bytes does not hold the name, "
                                     "datatype and dataspace it declares (corrupt file?)",
                                     m.size()),
                         where.file, where.object};
        if (m[l.name + l.nameSize - 1] != '\0')  // HDF5 copies the name with strdup
            return Error{ErrorKind::Format,
                         "an attribute's name does not end where its message says (corrupt "
                         "file?)",
                         where.file, where.object};
        std::string name(reinterpret_cast<const char*>(&m[l.name]), l.nameSize - 1);
        name = name.substr(0, name.find('\0'));
        const Location attribute{where.file, where.object + "@" + name};
        if (!l.sharedType && !isPlainDatatype(&m[l.type], l.typeSize))
            return Error{ErrorKind::Format,
                         "the attribute's datatype is not an integer, float or string type "
                         "(corrupt file?)",
                         attribute.file, attribute.object};
        if (l.sharedType || l.typeSize < 8) continue;
        const size_t stored = m.size() - l.data;
        const uint64_t typeBytes = littleEndian(&m[l.type + 4], 4);
        const bool variableString = (m[l.type] & 0x0F) == 9 && (m[l.type + 1] & 0x0F) == 1;
        if (!variableString) {
            // HDF5 copies elements x type size out of the stored values.
            const auto values =
                l.sharedSpace ? std::optional<uint64_t>(0)
                              : dataspaceElements(m, l.space, l.spaceSize, lengths, kMaxElements);
            if (!values || *values > kMaxElements || *values * typeBytes > stored)
                return Error{ErrorKind::Format,
                             fmt::format("the attribute's {} bytes of values do not hold what its "
                                         "datatype and dataspace declare (corrupt file?)",
                                         stored),
                             attribute.file, attribute.object};
            continue;
        }
        const size_t descriptor = descriptorBytes(offsets);
        // HDF5 sizes the stored values by the datatype's size and converts them as descriptors.
        if (typeBytes != descriptor)
            return Error{ErrorKind::Format,
                         fmt::format("the attribute's string type is {} bytes, not a {}-byte "
                                     "descriptor (corrupt file?)",
                                     typeBytes, descriptor),
                         attribute.file, attribute.object};
        std::optional<uint64_t> count = stored / descriptor;
        if (!l.sharedSpace)
            count = dataspaceElements(m, l.space, l.spaceSize, lengths, kMaxElements);
        if (!count || *count > kMaxElements || *count * descriptor > stored)
            return Error{ErrorKind::Format,
                         fmt::format("the attribute's {} bytes of values do not hold the strings "
                                     "its dataspace declares (corrupt file?)",
                                     stored),
                         attribute.file, attribute.object};
        if (auto st = checkStringDescriptors(file, &m[l.data], *count, offsets,
                                             kMaxStringArrayBytes, attribute);
            !st)
            return st;
    }
    return Ok{};
}

}  // namespace gatescope::data::h5
