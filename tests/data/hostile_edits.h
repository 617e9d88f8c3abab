// Test support: turns a valid trace into a hostile one with the raw HDF5 C API (the trace API
// cannot write bad traces on purpose). Header-only, shared by tests/data and tests/app.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/h5/library.h"

namespace gatescope::test {

/// Opens `path` read-write, runs `edit(file)`, closes it.
template <class Edit>
void editTrace(const std::filesystem::path& path, Edit edit) {
    auto lock = data::h5::lockLibrary();
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0) << path;
    edit(file);
    EXPECT_GE(H5Fclose(file), 0);
}

/// JSON arrays nested `depth` deep: "[[[...]]]".
inline std::string deepJson(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

/// Replaces (or creates) scalar attribute `name` of the object at `object` with an int64.
inline void setIntAttribute(hid_t file, const char* object, const char* name, int64_t value) {
    if (H5Aexists_by_name(file, object, name, H5P_DEFAULT) > 0) {
        EXPECT_GE(H5Adelete_by_name(file, object, name, H5P_DEFAULT), 0);
    }
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate_by_name(file, object, name, H5T_STD_I64LE, space, H5P_DEFAULT,
                                   H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(attr, 0);
    EXPECT_GE(H5Awrite(attr, H5T_NATIVE_INT64, &value), 0);
    H5Aclose(attr);
    H5Sclose(space);
}

/// Replaces attribute `name` of `object` with a value of file type `type` on dataspace `space`,
/// written from `data` in that same type.
inline void setAttribute(hid_t file, const char* object, const char* name, hid_t type, hid_t space,
                         const void* data) {
    if (H5Aexists_by_name(file, object, name, H5P_DEFAULT) > 0) {
        EXPECT_GE(H5Adelete_by_name(file, object, name, H5P_DEFAULT), 0);
    }
    hid_t attr =
        H5Acreate_by_name(file, object, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(attr, 0);
    if (data) {
        EXPECT_GE(H5Awrite(attr, type, data), 0);
    }
    H5Aclose(attr);
}

/// Replaces attribute `name` of `object` with a scalar variable-length UTF-8 string.
inline void setStringAttribute(hid_t file, const char* object, const char* name,
                               const std::string& value) {
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    const char* pointer = value.c_str();
    setAttribute(file, object, name, type, space, &pointer);
    H5Sclose(space);
    H5Tclose(type);
}

/// Replaces the scalar string dataset at `path` with `value` (variable-length UTF-8).
inline void setScalarString(hid_t file, const char* path, const std::string& value) {
    if (H5Lexists(file, path, H5P_DEFAULT) > 0) {
        EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    }
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t ds = H5Dcreate2(file, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(ds, 0);
    const char* pointer = value.c_str();
    EXPECT_GE(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &pointer), 0);
    H5Dclose(ds);
    H5Sclose(space);
    H5Tclose(type);
}

/// Replaces the float dataset at `path` ([n]) with one whose values HDF5 reads from `external`
/// (HDF5 external storage: raw bytes of any file).
inline void replaceWithExternalStorage(hid_t file, const char* path,
                                       const std::filesystem::path& external, hsize_t n) {
    EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    EXPECT_GE(H5Pset_external(dcpl, external.c_str(), 0, n * sizeof(float)), 0);
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t ds = H5Dcreate2(file, path, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    EXPECT_GE(ds, 0);
    H5Dclose(ds);
    H5Sclose(space);
    H5Pclose(dcpl);
}

/// Replaces the object at `path` with an external link to `object` in `target`.
inline void replaceWithExternalLink(hid_t file, const char* path,
                                    const std::filesystem::path& target, const char* object) {
    if (H5Lexists(file, path, H5P_DEFAULT) > 0) {
        EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    }
    EXPECT_GE(H5Lcreate_external(target.c_str(), object, file, path, H5P_DEFAULT, H5P_DEFAULT), 0);
}

/// Replaces the object at `path` with a soft link to `object` in the same file.
inline void replaceWithSoftLink(hid_t file, const char* path, const char* object) {
    EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    EXPECT_GE(H5Lcreate_soft(object, file, path, H5P_DEFAULT, H5P_DEFAULT), 0);
}

/// Replaces the float dataset at `path` ([n]) with a virtual dataset reading `object` of
/// `source`.
inline void replaceWithVirtual(hid_t file, const char* path, const std::filesystem::path& source,
                               const char* object, hsize_t n) {
    EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    EXPECT_GE(H5Pset_virtual(dcpl, space, source.c_str(), object, space), 0);
    hid_t ds = H5Dcreate2(file, path, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    EXPECT_GE(ds, 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/// Replaces the dataset at `path` with an empty (unwritten) chunked float dataset of `dims`,
/// chunked as `chunk`.
inline void replaceWithChunked(hid_t file, const char* path, std::vector<hsize_t> dims,
                               std::vector<hsize_t> chunk) {
    EXPECT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0);
    hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    EXPECT_GE(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), 0);
    hid_t ds = H5Dcreate2(file, path, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    EXPECT_GE(ds, 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

}  // namespace gatescope::test
