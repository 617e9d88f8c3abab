#include "data/h5/string_values.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>

namespace gatescope::data::h5 {
namespace {

Error tooLarge(const Location& where, size_t bytes, size_t limit) {
    return Error{
        ErrorKind::Format,
        fmt::format("strings of {} bytes exceed the {} bytes gatescope reads", bytes, limit),
        where.file, where.object};
}

// A memory type built here, never copied from the file: same character set, and for fixed-length
// values the same width with NUL padding (HDF5 converts the file's padding to it).
Result<Handle> memoryType(const StringType& stored, const Location& where) {
    auto id = checkId(H5Tcopy(H5T_C_S1), ErrorKind::Internal, where, "cannot create string type");
    if (!id) return id.error();
    Handle type(*id, where);
    herr_t rc = H5Tset_size(*id, stored.variable ? H5T_VARIABLE : stored.width);
    if (rc >= 0) rc = H5Tset_cset(*id, stored.cset);
    if (rc >= 0 && !stored.variable) rc = H5Tset_strpad(*id, H5T_STR_NULLPAD);
    if (auto st = check(rc, ErrorKind::Internal, where, "cannot set up string type"); !st)
        return st.error();
    return type;
}

Result<std::vector<std::string>> readFixed(const StringType& stored, size_t count, size_t maxTotal,
                                           hid_t memType,
                                           const std::function<herr_t(hid_t, void*)>& read,
                                           const Location& where) {
    if (count > maxTotal / stored.width) return tooLarge(where, count * stored.width, maxTotal);
    std::vector<char> buffer(count * stored.width + 1, '\0');
    auto rc = check(read(memType, buffer.data()), ErrorKind::Format, where, "cannot read strings");
    if (!rc) return rc.error();
    std::vector<std::string> out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const char* value = buffer.data() + i * stored.width;
        size_t length = ::strnlen(value, stored.width);
        if (stored.pad == H5T_STR_SPACEPAD)
            while (length > 0 && value[length - 1] == ' ')
                --length;
        out.emplace_back(value, length);
    }
    return out;
}

Result<std::vector<std::string>> readVariable(size_t count, size_t maxTotal, hid_t memType,
                                              const std::function<herr_t(hid_t, void*)>& read,
                                              const Location& where) {
    const hsize_t extent = count;
    auto space = Space::simple({extent}, where);
    if (!space) return space.error();
    std::vector<char*> pointers(count, nullptr);
    const herr_t status = read(memType, pointers.data());
    // Whatever HDF5 allocated goes back to HDF5's allocator, also after a failed read (slots it
    // did not reach are still null, which H5Dvlen_reclaim skips).
    auto reclaim = [&] {
        if (H5Dvlen_reclaim(memType, space->id(), H5P_DEFAULT, pointers.data()) < 0)
            H5Eclear2(H5E_DEFAULT);
    };
    if (status < 0) {
        Error error = makeError(ErrorKind::Format, where, "cannot read strings");
        reclaim();
        return error;
    }
    std::vector<std::string> out;
    out.reserve(count);
    size_t total = 0;
    for (const char* p : pointers) {
        const size_t length = p ? ::strnlen(p, kMaxStringBytes + 1) : 0;
        total += length;
        if (length > kMaxStringBytes || total > maxTotal) {
            reclaim();
            return tooLarge(where, total, length > kMaxStringBytes ? kMaxStringBytes : maxTotal);
        }
        out.emplace_back(p ? p : "", length);
    }
    reclaim();
    return out;
}

}  // namespace

Result<StringType> inspectStringType(const Type& type, size_t maxWidth, const Location& where) {
    if (type.typeClass() != H5T_STRING)
        return Error{ErrorKind::Shape, "expected strings, found another datatype", where.file,
                     where.object};
    StringType out;
    const htri_t variable = H5Tis_variable_str(type.id());
    out.cset = H5Tget_cset(type.id());
    out.pad = H5Tget_strpad(type.id());
    if (variable < 0 || (out.cset != H5T_CSET_ASCII && out.cset != H5T_CSET_UTF8) ||
        (out.pad != H5T_STR_NULLTERM && out.pad != H5T_STR_NULLPAD &&
         out.pad != H5T_STR_SPACEPAD)) {
        H5Eclear2(H5E_DEFAULT);
        return Error{ErrorKind::Format, "string type with an unknown character set or padding",
                     where.file, where.object};
    }
    out.variable = variable > 0;
    if (!out.variable) {
        out.width = type.size();
        if (out.width == 0 || out.width > maxWidth)
            return Error{ErrorKind::Format,
                         fmt::format("fixed-length strings of {} bytes (allowed: 1 to {})",
                                     out.width, maxWidth),
                         where.file, where.object};
    }
    return out;
}

Result<std::vector<std::string>> readStringValues(const StringType& stored, size_t count,
                                                  size_t maxTotal,
                                                  const std::function<herr_t(hid_t, void*)>& read,
                                                  const Location& where) {
    if (count == 0) return std::vector<std::string>{};
    auto memType = memoryType(stored, where);
    if (!memType) return memType.error();
    if (stored.variable) return readVariable(count, maxTotal, memType->id(), read, where);
    return readFixed(stored, count, maxTotal, memType->id(), read, where);
}

}  // namespace gatescope::data::h5
