// Test support: reads a 2-D float dataset the way h5py does, with the raw HDF5 C API, so virtual
// datasets are followed into their source files (gatescope's own reader refuses them). Header-only,
// shared by tests/data and tests/app.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstddef>
#include <filesystem>
#include <vector>

#include "data/h5/library.h"

namespace gatescope::test {

/// A row-major [rows, cols] float matrix.
struct FloatMatrix {
    size_t rows = 0, cols = 0;
    std::vector<float> values;

    float at(size_t row, size_t col) const { return values[row * cols + col]; }
};

/// Dataset `name` of the file at `path`, read whole; empty (and a test failure) when it cannot be.
inline FloatMatrix readFloatMatrix(const std::filesystem::path& path, const char* name) {
    auto lock = data::h5::lockLibrary();
    FloatMatrix out;
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(file, 0) << path;
    const hid_t dataset = file < 0 ? H5I_INVALID_HID : H5Dopen2(file, name, H5P_DEFAULT);
    const hid_t space = dataset < 0 ? H5I_INVALID_HID : H5Dget_space(dataset);
    hsize_t dims[2] = {0, 0};
    if (space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
        H5Sget_simple_extent_dims(space, dims, nullptr) == 2) {
        std::vector<float> values(dims[0] * dims[1]);
        if (H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0)
            out = {dims[0], dims[1], std::move(values)};
    }
    EXPECT_FALSE(out.values.empty()) << path << ": cannot read " << name << " as a 2-D float array";
    if (space >= 0) H5Sclose(space);
    if (dataset >= 0) H5Dclose(dataset);
    if (file >= 0) H5Fclose(file);
    return out;
}

}  // namespace gatescope::test
