#include "data/h5/dataset.h"

#include <string>

#include "data/h5/access.h"
#include "data/h5/background_write_driver.h"
#include "data/h5/chunk_verify.h"
#include "data/h5/dataset_header_check.h"
#include "data/h5/file.h"
#include "data/h5/filters.h"

namespace gatescope::data::h5 {

Result<Dataset> Dataset::create(const Object& parent, std::string_view name, const Type& type,
                                const Dims& dims, const PropertyList& dcpl) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto space = Space::simple(dims, where);
    if (!space) return space.error();
    auto id = checkId(H5Dcreate2(parent.id(), std::string(name).c_str(), type.id(), space->id(),
                                 H5P_DEFAULT, dcpl.id(), H5P_DEFAULT),
                      ErrorKind::Io, where, "cannot create dataset");
    if (!id) return id.error();
    return Dataset(Handle(*id, where));
}

Result<Dataset> Dataset::createScalar(const Object& parent, std::string_view name,
                                      const Type& type) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto space = Space::scalar(where);
    if (!space) return space.error();
    auto id = checkId(H5Dcreate2(parent.id(), std::string(name).c_str(), type.id(), space->id(),
                                 H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      ErrorKind::Io, where, "cannot create dataset");
    if (!id) return id.error();
    return Dataset(Handle(*id, where));
}

Result<Dataset> Dataset::open(const Object& parent, std::string_view name) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto found = exists(parent, name);
    if (!found) return found.error();
    if (!*found) return Error{ErrorKind::Missing, "no such dataset", where.file, where.object};
    H5O_info_t info;
    auto rc = check(H5Oget_info_by_name2(parent.id(), std::string(name).c_str(), &info,
                                         H5O_INFO_BASIC, linkAccess()),
                    ErrorKind::Format, where, "cannot inspect object");
    if (!rc) return rc.error();
    if (info.type != H5O_TYPE_DATASET)
        return Error{ErrorKind::Shape, "expected a dataset, found another kind of object",
                     where.file, where.object};
    const hid_t file = H5Iget_file_id(parent.id());
    if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the dataset's file");
    Handle fileOwner(file, where);
    if (auto header = checkDatasetHeader(file, info.addr, where); !header) return header.error();
    auto id = checkId(H5Dopen2(parent.id(), std::string(name).c_str(), datasetAccess()),
                      ErrorKind::Format, where, "cannot open dataset");
    if (!id) return id.error();
    Dataset dataset(Handle(*id, where));
    if (auto local = dataset.requireLocalStorage(); !local) return local.error();
    return dataset;
}

Status Dataset::requireLocalStorage() const {
    auto lock = lockLibrary();
    hid_t dcpl = H5Dget_create_plist(id());
    if (dcpl < 0) return makeError(ErrorKind::Format, where(), "cannot read creation properties");
    Handle owner(dcpl, where());
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_VIRTUAL)
        return Error{ErrorKind::Unsupported,
                     "is a virtual dataset (its values would come from other files); gatescope "
                     "reads only data stored inside the file",
                     where().file, where().object};
    if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED)
        return makeError(ErrorKind::Format, where(), "unknown storage layout");
    const int external = H5Pget_external_count(dcpl);
    if (external < 0) return makeError(ErrorKind::Format, where(), "cannot read storage");
    if (external > 0) {
        char name[256] = {0};
        off_t offset = 0;
        hsize_t size = 0;
        if (H5Pget_external(dcpl, 0, sizeof name - 1, name, &offset, &size) < 0)
            H5Eclear2(H5E_DEFAULT);
        name[sizeof name - 1] = '\0';
        return Error{ErrorKind::Unsupported,
                     "is stored in external file '" + std::string(name) +
                         "' (HDF5 external storage); gatescope reads only data stored inside the "
                         "file",
                     where().file, where().object};
    }
    return Ok{};
}

Result<Space> Dataset::space() const {
    auto lock = lockLibrary();
    return Space::adopt(H5Dget_space(id()), where());
}

Result<Dims> Dataset::dims() const {
    auto lock = lockLibrary();
    auto s = space();
    if (!s) return s.error();
    return s->dims();
}

Result<Type> Dataset::type() const {
    auto lock = lockLibrary();
    return Type::adopt(H5Dget_type(id()), where());
}

Result<Dims> Dataset::chunkDims() const {
    auto lock = lockLibrary();
    hid_t dcpl = H5Dget_create_plist(id());
    if (dcpl < 0) return makeError(ErrorKind::Format, where(), "cannot read creation properties");
    Handle owner(dcpl, where());
    if (H5Pget_layout(dcpl) != H5D_CHUNKED) return Dims{};
    Dims chunk(32);
    int rank = H5Pget_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
    if (rank < 0) return makeError(ErrorKind::Format, where(), "cannot read chunk shape");
    chunk.resize(static_cast<size_t>(rank));
    return chunk;
}

Status Dataset::write(const Type& memType, const void* data) {
    auto lock = lockLibrary();
    return check(H5Dwrite(id(), memType.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data), ErrorKind::Io,
                 where(), "cannot write dataset");
}

Status Dataset::writeBlock(const Type& memType, const void* data, const Dims& start,
                           const Dims& count) {
    auto lock = lockLibrary();
    auto fileSpace = space();
    if (!fileSpace) return fileSpace.error();
    auto rc = fileSpace->selectBlock(start, count);
    if (!rc) return rc;
    auto memSpace = Space::simple(count, where());
    if (!memSpace) return memSpace.error();
    return check(H5Dwrite(id(), memType.id(), memSpace->id(), fileSpace->id(), H5P_DEFAULT, data),
                 ErrorKind::Io, where(), "cannot write dataset block");
}

Status Dataset::writeRawChunk(const Dims& offset, const void* data, size_t bytes) {
    auto lock = lockLibrary();
    return check(H5Dwrite_chunk(id(), H5P_DEFAULT, 0, offset.data(), bytes, data), ErrorKind::Io,
                 where(), "cannot write dataset chunk");
}

Status Dataset::writeRawChunk(const Dims& offset, std::vector<unsigned char> bytes) {
    auto lock = lockLibrary();
    RawBytesHandoff handoff(bytes);
    return writeRawChunk(offset, bytes.data(), bytes.size());
}

Status Dataset::read(const Type& memType, void* data) const {
    auto lock = lockLibrary();
    auto dims = this->dims();
    if (!dims) return dims.error();
    auto chunkBytes = verifyChunks(id(), Dims(dims->size(), 0), *dims, where());
    if (!chunkBytes) return chunkBytes.error();
    ExpectedChunkBytes expected(*chunkBytes);
    return check(H5Dread(id(), memType.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                 ErrorKind::Format, where(), "cannot read dataset (corrupt or truncated file?)");
}

Status Dataset::readBlock(const Type& memType, void* data, const Dims& start,
                          const Dims& count) const {
    auto lock = lockLibrary();
    auto fileSpace = space();
    if (!fileSpace) return fileSpace.error();
    auto rc = fileSpace->selectBlock(start, count);
    if (!rc) return rc;
    auto memSpace = Space::simple(count, where());
    if (!memSpace) return memSpace.error();
    auto chunkBytes = verifyChunks(id(), start, count, where());
    if (!chunkBytes) return chunkBytes.error();
    ExpectedChunkBytes expected(*chunkBytes);
    return check(H5Dread(id(), memType.id(), memSpace->id(), fileSpace->id(), H5P_DEFAULT, data),
                 ErrorKind::Format, where(),
                 "cannot read dataset block (corrupt or truncated file?)");
}

Result<uint64_t> Dataset::storageSize() const {
    auto lock = lockLibrary();
    // HDF5 1.10 returns 0 both for a dataset with nothing allocated and on failure; only the
    // error stack tells them apart.
    H5Eclear2(H5E_DEFAULT);
    const hsize_t size = H5Dget_storage_size(id());
    if (size == 0 && H5Eget_num(H5E_DEFAULT) > 0)
        return makeError(ErrorKind::Format, where(), "cannot get the stored size");
    return static_cast<uint64_t>(size);
}

Result<uint64_t> Dataset::allocatedChunks() const {
    auto lock = lockLibrary();
    // HDF5 1.10 wants a real dataspace here; H5S_ALL is refused.
    auto fileSpace = space();
    if (!fileSpace) return fileSpace.error();
    hsize_t count = 0;
    auto rc = check(H5Dget_num_chunks(id(), fileSpace->id(), &count), ErrorKind::Format, where(),
                    "cannot count allocated chunks");
    if (!rc) return rc.error();
    return static_cast<uint64_t>(count);
}

}  // namespace gatescope::data::h5
