#include "data/h5/strings.h"

#include <fmt/format.h>

#include "data/h5/string_values.h"

namespace gatescope::data::h5 {
namespace {

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
