#include "core/input/npy_reader.h"

#include <cstring>
#include <limits>
#include <map>
#include <string>

#include <fmt/format.h>

#include "core/input/npy_header.h"

namespace gatescope::core {
namespace {

template <class T>
void readAll(std::string_view data, std::size_t count, std::vector<int64_t>& out,
             std::size_t& firstTooLarge) {
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
        if constexpr (std::is_same_v<T, uint64_t>) {
            if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) &&
                firstTooLarge == std::string_view::npos) {
                firstTooLarge = i;
            }
        }
        out[i] = static_cast<int64_t>(v);
    }
}

}  // namespace

Result<std::vector<int64_t>> parseNpyIds(std::string_view bytes,
                                         const std::filesystem::path& file) {
    auto fail = [&](std::string message) {
        return Error{ErrorKind::Format, std::move(message), file.string(), {}};
    };
    if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6)) {
        return fail("not a NumPy .npy file (no \\x93NUMPY magic)");
    }
    const auto major = static_cast<uint8_t>(bytes[6]);
    std::size_t headerLength = 0;
    std::size_t headerStart = 0;
    if (major == 1) {
        headerLength = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) return fail("truncated .npy header");
        uint32_t length = 0;
        std::memcpy(&length, bytes.data() + 8, 4);
        headerLength = length;
        headerStart = 12;
    } else {
        return Error{ErrorKind::Version,
                     fmt::format(".npy format version {} is not supported", major),
                     file.string(),
                     {}};
    }
    if (headerStart + headerLength > bytes.size()) {
        return fail("truncated .npy header (header length beyond the end of the file)");
    }
    std::map<std::string, NpyValue> header;
    std::string why;
    if (!parseNpyHeaderDict(bytes.substr(headerStart, headerLength), header, why)) {
        return fail("malformed .npy header: " + why);
    }
    const auto descr = header.find("descr");
    const auto shape = header.find("shape");
    if (descr == header.end() || descr->second.type != NpyValue::Type::String ||
        shape == header.end() || shape->second.type != NpyValue::Type::Tuple) {
        return fail(".npy header lacks 'descr' or 'shape'");
    }
    const std::string& d = descr->second.text;
    if (d.find('O') != std::string::npos) {
        return Error{ErrorKind::Unsupported,
                     ".npy holds an object array (pickled Python objects); refused: save token "
                     "ids as an integer array (np.save(path, np.asarray(ids, dtype=np.int32)))",
                     file.string(),
                     {}};
    }
    const bool knownSize =
        d.size() == 3 && (d[2] == '1' || d[2] == '2' || d[2] == '4' || d[2] == '8');
    const bool littleEndian = d.size() == 3 && (d[0] == '<' || (d[0] == '|' && d[2] == '1'));
    if (!knownSize || !littleEndian || (d[1] != 'i' && d[1] != 'u')) {
        const char* hint = (!d.empty() && d[0] == '>') ? " (big-endian data is not supported)" : "";
        return Error{ErrorKind::Shape,
                     fmt::format(".npy dtype '{}' is not a little-endian integer type{}", d, hint),
                     file.string(),
                     {}};
    }
    const std::vector<uint64_t>& dims = shape->second.items;
    const bool oneD = dims.size() == 1;
    const bool rowVector = dims.size() == 2 && dims[0] == 1;
    if (!oneD && !rowVector) {
        return Error{
            ErrorKind::Shape, ".npy array must be 1-D (N,) or (1, N) token ids", file.string(), {}};
    }
    const uint64_t count = dims.back();
    const std::size_t itemSize = static_cast<std::size_t>(d[2] - '0');
    const std::string_view data = bytes.substr(headerStart + headerLength);
    if (count > data.size() / itemSize || count * itemSize != data.size()) {
        return fail(
            fmt::format(".npy data is {} bytes but shape ({} ids of {} bytes) needs {} "
                        "(truncated?)",
                        data.size(), count, itemSize, count * itemSize));
    }
    std::vector<int64_t> out;
    std::size_t tooLarge = std::string_view::npos;
    const bool isSigned = d[1] == 'i';
    switch (itemSize) {
        case 1:
            isSigned ? readAll<int8_t>(data, count, out, tooLarge)
                     : readAll<uint8_t>(data, count, out, tooLarge);
            break;
        case 2:
            isSigned ? readAll<int16_t>(data, count, out, tooLarge)
                     : readAll<uint16_t>(data, count, out, tooLarge);
            break;
        case 4:
            isSigned ? readAll<int32_t>(data, count, out, tooLarge)
                     : readAll<uint32_t>(data, count, out, tooLarge);
            break;
        default:
            isSigned ? readAll<int64_t>(data, count, out, tooLarge)
                     : readAll<uint64_t>(data, count, out, tooLarge);
    }
    if (tooLarge != std::string_view::npos) {
        return fail(fmt::format("token {} has an id beyond the int64 range", tooLarge));
    }
    return out;
}

}  // namespace gatescope::core
