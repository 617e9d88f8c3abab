#include "data/h5/dataset_header_check.h"

#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "data/h5/checked_driver.h"
#include "data/h5/group_heap_check.h"
#include "data/h5/object_header.h"
#include "data/h5/raw_fields.h"
#include "data/h5/vlen_descriptors.h"

namespace gatescope::data::h5 {

namespace {

constexpr unsigned kDataspace = 0x0001, kDatatype = 0x0003, kOldFillValue = 0x0004,
                   kFillValue = 0x0005, kExternalFiles = 0x0007, kLayout = 0x0008,
                   kFilterPipeline = 0x000B;
constexpr unsigned kSharedData = 0x02;  // the message's data is a reference to a shared one
constexpr uint64_t kMaxDatasetElements = uint64_t{1} << 40;
constexpr unsigned kMaxFilters = 32;  // HDF5's own limit (H5Z_MAX_NFILTERS)

struct Checker {
    const Location& where;
    size_t offsets, lengths;
    uint64_t fileSize;

    Error corrupt(const std::string& what) const {
        return Error{ErrorKind::Format, what + " (corrupt file?)", where.file, where.object};
    }

    /// Filter pipeline, versions 1 and 2: every filter's name and client values inside.
    Status pipeline(const std::vector<uint8_t>& m) const {
        if (m.size() < 2 || (m[0] != 1 && m[0] != 2) || m[1] > kMaxFilters)
            return corrupt("its filter pipeline message cannot be read");
        size_t at = m[0] == 1 ? 8 : 2;
        for (unsigned f = 0; f < m[1]; ++f) {
            if (at + 2 > m.size()) return corrupt("its filter pipeline is cut short");
            const uint64_t id = littleEndian(&m[at], 2);
            const bool named = m[0] == 1 || id >= 256;
            const size_t fixed = named ? 8 : 6;
            if (at + fixed > m.size()) return corrupt("its filter pipeline is cut short");
            const uint64_t nameLength = named ? littleEndian(&m[at + 2], 2) : 0;
            const uint64_t values = littleEndian(&m[at + fixed - 2], 2);
            uint64_t next = at + fixed + (m[0] == 1 ? (nameLength + 7) / 8 * 8 : nameLength);
            if (nameLength > 0 && (next > m.size() || m[at + fixed + nameLength - 1] != '\0'))
                return corrupt("a filter name of its pipeline runs past the message");
            next += 4 * (m[0] == 1 && values % 2 ? values + 1 : values);
            if (next > m.size())
                return corrupt(
                    "the values of a filter of its pipeline run past "
                    "the message");
            at = next;
        }
        return Ok{};
    }

    /// External file list: HDF5 copies each file name out of the list's local heap with strdup;
    /// every name must end inside the heap's data. (The dataset is refused after it opens, by
    /// Dataset::open, naming the external file.)
    Status externalFiles(hid_t file, const std::vector<uint8_t>& m) const {
        const size_t slots = 8 + offsets, slotBytes = 3 * lengths;
        if (m.size() < slots || m[0] != 1) return corrupt("its external file list cannot be read");
        const uint64_t used = littleEndian(&m[6], 2);
        if (used > 1024 || slots + used * slotBytes > m.size())
            return corrupt("its external file list runs past the message");
        const uint64_t heap = littleEndian(&m[8], offsets);
        const auto local = readLocalHeap(file, heap, offsets, lengths);
        if (!local) return corrupt("the names of its external file list are not in a local heap");
        const uint64_t dataSize = local->dataSize, dataAddress = local->dataAddress;
        if (dataSize == 0 || dataSize > (uint64_t{1} << 20))
            return corrupt("the local heap of its external file list has an impossible size");
        std::vector<uint8_t> data(dataSize);
        if (!readCheckedBytes(file, dataAddress, data.size(), data.data()))
            return corrupt("the local heap of its external file list lies past the file's end");
        for (uint64_t s = 0; s < used; ++s) {
            const uint64_t name = littleEndian(&m[slots + s * slotBytes], lengths);
            if (name >= dataSize || !std::memchr(&data[name], '\0', dataSize - name))
                return corrupt("a name of its external file list runs past its local heap");
        }
        return Ok{};
    }

    /// Fill value messages: the value's declared size inside the message.
    Status fill(unsigned type, const std::vector<uint8_t>& m) const {
        size_t sizeAt = 0;
        if (type == kOldFillValue) {
            sizeAt = 0;
        } else if (m.size() >= 2 && (m[0] == 1 || m[0] == 2)) {
            if (m.size() < 4) return corrupt("its fill value message is cut short");
            if (m[3] == 0 && m[0] == 2) return Ok{};  // no value defined
            sizeAt = 4;
        } else if (m.size() >= 2 && m[0] == 3) {
            if (!(m[1] & 0x20)) return Ok{};  // no value defined
            sizeAt = 2;
        } else {
            return corrupt("its fill value message cannot be read");
        }
        if (sizeAt + 4 > m.size()) return corrupt("its fill value message is cut short");
        if (sizeAt + 4 + littleEndian(&m[sizeAt], 4) > m.size())
            return corrupt("its fill value runs past the message");
        return Ok{};
    }

    /// Layout versions 3 and 4 (what HDF5 1.8 and later write). `stored`: bytes of a contiguous
    /// or compact dataset's storage.
    Status layout(const std::vector<uint8_t>& m, std::optional<uint64_t>& stored) const {
        if (m.size() < 2 || (m[0] != 3 && m[0] != 4))
            return corrupt(fmt::format("its storage layout message has version {}, not 3 or 4",
                                       m.empty() ? 0u : unsigned(m[0])));
        switch (m[1]) {
            case 0: {  // compact: the values are in the message
                if (m.size() < 4) return corrupt("its compact storage is cut short");
                stored = littleEndian(&m[2], 2);
                if (4 + *stored > m.size())
                    return corrupt("its compact values run past the layout message");
                return Ok{};
            }
            case 1: {  // contiguous: an address and a size in the file
                if (m.size() < 2 + offsets + lengths)
                    return corrupt("its contiguous storage is cut short");
                const uint64_t address = littleEndian(&m[2], offsets);
                stored = littleEndian(&m[2 + offsets], lengths);
                const bool undefined = offsets == 8 ? address == ~uint64_t{0}
                                                    : address == (uint64_t{1} << 8 * offsets) - 1;
                if (!undefined && (address > fileSize || *stored > fileSize - address))
                    return corrupt(
                        fmt::format("its {} bytes of values at {} lie past the end of "
                                    "the file ({} bytes)",
                                    *stored, address, fileSize));
                return Ok{};
            }
            case 2: {  // chunked: a B-tree or chunk index the checking driver bounds
                if (m[0] == 3 && (m.size() < 3 || m[2] < 2 || m[2] > 33 ||
                                  m.size() < 3 + offsets + 4 * size_t{m[2]}))
                    return corrupt("its chunked storage layout cannot be read");
                if (m[0] == 4 && m.size() < 5) return corrupt("its chunked storage is cut short");
                return Ok{};
            }
            case 3:
                return Error{ErrorKind::Unsupported,
                             "is a virtual dataset (its values would come from other files); "
                             "gatescope reads only data stored inside the file",
                             where.file, where.object};
            default:
                return corrupt(fmt::format("its storage layout class {} is unknown", m[1]));
        }
    }
};

}  // namespace

Status checkDatasetHeader(hid_t file, uint64_t address, const Location& where) {
    auto sizes = fileOffsetSizes(file, where);
    if (!sizes) return sizes.error();
    if (sizes->offsets == 0 || sizes->offsets > 8 || sizes->lengths == 0 || sizes->lengths > 8)
        return Ok{};  // HDF5 refuses such files itself
    auto messages = readObjectHeader(file, address, sizes->offsets, sizes->lengths, where);
    if (!messages) return messages.error();
    if (!*messages) return Ok{};
    hsize_t fileSize = 0;
    if (H5Fget_filesize(file, &fileSize) < 0)
        return makeError(ErrorKind::Format, where, "cannot get the file's size");
    const Checker check{where, sizes->offsets, sizes->lengths, fileSize};

    std::optional<uint64_t> elements, elementBytes, stored;
    for (const auto& message : **messages) {
        if (message.flags & kSharedData) continue;
        const auto& m = message.data;
        Status st = Ok{};
        switch (message.type) {
            case kExternalFiles:
                st = check.externalFiles(file, m);
                break;
            case kLayout:
                st = check.layout(m, stored);
                break;
            case kFilterPipeline:
                st = check.pipeline(m);
                break;
            case kOldFillValue:
            case kFillValue:
                st = check.fill(message.type, m);
                break;
            case kDataspace:
                elements = dataspaceElements(m, 0, m.size(), sizes->lengths, kMaxDatasetElements);
                if (!elements || *elements > kMaxDatasetElements)
                    return check.corrupt("its dataspace message cannot be read");
                break;
            case kDatatype:
                if (!isPlainDatatype(m.data(), m.size()))
                    return check.corrupt("its datatype is not an integer, float or string type");
                elementBytes = littleEndian(&m[4], 4);
                break;
            default:
                break;
        }
        if (!st) return st;
    }
    if (stored && elements && elementBytes && *stored != *elements * *elementBytes)
        return check.corrupt(
            fmt::format("its storage holds {} bytes, not the {} of {} elements of "
                        "{} bytes",
                        *stored, *elements * *elementBytes, *elements, *elementBytes));
    return Ok{};
}

}  // namespace gatescope::data::h5
