#include "data/h5/virtual_dataset.h"

#include <fmt/format.h>

#include "data/h5/access.h"
#include "data/h5/file.h"

namespace gatescope::data::h5 {

Status createVirtualRows(const Object& parent, std::string_view name, hsize_t rows, hsize_t cols,
                         float fill, const std::vector<VirtualRow>& mappings) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto dcpl = PropertyList::create(H5P_DATASET_CREATE, where);
    if (!dcpl) return dcpl.error();
    const Type element = Type::nativeFloat();
    auto rc = check(H5Pset_fill_value(dcpl->id(), element.id(), &fill), ErrorKind::Internal, where,
                    "cannot set the fill value");
    if (!rc) return rc;
    auto space = Space::simple({rows, cols}, where);
    if (!space) return space.error();
    for (const VirtualRow& mapping : mappings) {
        if (mapping.row >= rows || mapping.count > cols)
            return Error{ErrorKind::Usage,
                         fmt::format("cannot map {} values into row {} of a {} x {} dataset",
                                     mapping.count, mapping.row, rows, cols),
                         where.file, where.object};
        auto source = Space::simple({mapping.count}, where);
        if (!source) return source.error();
        rc = space->selectBlock({mapping.row, 0}, {1, mapping.count});
        if (!rc) return rc;
        rc = check(H5Pset_virtual(dcpl->id(), space->id(), mapping.sourceFile.c_str(),
                                  mapping.sourceDataset.c_str(), source->id()),
                   ErrorKind::Io, where, fmt::format("cannot map {}", mapping.sourceFile));
        if (!rc) return rc;
    }
    // The dataset gets a space of its own, without the selections made above.
    auto dataset = Dataset::create(parent, name, element, {rows, cols}, *dcpl);
    if (!dataset) return dataset.error();
    return dataset->close();
}

namespace {

// A name HDF5 copies out of a property list (H5Pget_virtual_filename, _dsetname): the length
// first, bounded, then the name.
using NameGetter = ssize_t (*)(hid_t, size_t, char*, size_t);

Result<std::string> readName(NameGetter get, hid_t dcpl, size_t index, size_t maxBytes,
                             const Location& where, const char* what) {
    const ssize_t length = get(dcpl, index, nullptr, 0);
    if (length < 0)
        return makeError(ErrorKind::Format, where,
                         fmt::format("mapping {}: cannot read its {}", index, what));
    if (static_cast<size_t>(length) > maxBytes)
        return Error{
            ErrorKind::Format,
            fmt::format("mapping {}: its {} is {} bytes, over {}", index, what, length, maxBytes),
            where.file, where.object};
    std::string name(static_cast<size_t>(length) + 1, '\0');
    if (get(dcpl, index, name.data(), name.size()) < 0)
        return makeError(ErrorKind::Format, where,
                         fmt::format("mapping {}: cannot read its {}", index, what));
    name.resize(static_cast<size_t>(length));
    return name;
}

Result<VirtualMapping> readMapping(hid_t dcpl, size_t index, size_t maxNameBytes,
                                   const Location& where) {
    VirtualMapping mapping;
    auto file =
        readName(H5Pget_virtual_filename, dcpl, index, maxNameBytes, where, "source file name");
    if (!file) return file.error();
    mapping.sourceFile = std::move(*file);
    auto dataset =
        readName(H5Pget_virtual_dsetname, dcpl, index, maxNameBytes, where, "source dataset name");
    if (!dataset) return dataset.error();
    mapping.sourceDataset = std::move(*dataset);
    auto space = Space::adopt(H5Pget_virtual_vspace(dcpl, index), where);
    if (!space) return space.error();
    auto extent = space->dims();
    if (!extent) return extent.error();
    mapping.extent = std::move(*extent);
    mapping.first.resize(mapping.extent.size());
    mapping.last.resize(mapping.extent.size());
    auto rc = check(H5Sget_select_bounds(space->id(), mapping.first.data(), mapping.last.data()),
                    ErrorKind::Format, where,
                    fmt::format("mapping {}: cannot read its selection", index));
    if (!rc) return rc.error();
    return mapping;
}

}  // namespace

Result<std::vector<VirtualMapping>> readVirtualMappings(const Object& parent, std::string_view name,
                                                        size_t maxNameBytes) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto found = exists(parent, name);
    if (!found) return found.error();
    if (!*found) return Error{ErrorKind::Missing, "no such dataset", where.file, where.object};
    auto id = checkId(H5Dopen2(parent.id(), std::string(name).c_str(), datasetAccess()),
                      ErrorKind::Format, where, "cannot open dataset");
    if (!id) return id.error();
    Handle dataset(*id, where);
    auto dcplId = checkId(H5Dget_create_plist(dataset.id()), ErrorKind::Format, where,
                          "cannot read creation properties");
    if (!dcplId) return dcplId.error();
    Handle dcpl(*dcplId, where);
    const H5D_layout_t layout = H5Pget_layout(dcpl.id());
    if (layout < 0) return makeError(ErrorKind::Format, where, "cannot read the storage layout");
    if (layout != H5D_VIRTUAL)
        return Error{ErrorKind::Format, "not a virtual dataset", where.file, where.object};
    size_t count = 0;
    auto rc = check(H5Pget_virtual_count(dcpl.id(), &count), ErrorKind::Format, where,
                    "cannot count the mappings");
    if (!rc) return rc.error();
    std::vector<VirtualMapping> mappings;
    for (size_t i = 0; i < count; ++i) {
        auto mapping = readMapping(dcpl.id(), i, maxNameBytes, where);
        if (!mapping) return mapping.error();
        mappings.push_back(std::move(*mapping));
    }
    return mappings;
}

}  // namespace gatescope::data::h5
