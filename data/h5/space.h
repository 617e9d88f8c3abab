// Dataspaces (shapes and selections) and datatypes, owned RAII-style.
#pragma once

#include <cstdint>
#include <vector>

#include "data/h5/handle.h"

namespace gatescope::data::h5 {

using Dims = std::vector<hsize_t>;

/// A dataspace: a shape, plus a selection inside it. Move-only; not shared between threads.
class Space {
public:
    /// A simple N-d space of fixed extent `dims` (every extent >= 1).
    static Result<Space> simple(const Dims& dims, const Location& where = {});
    static Result<Space> scalar(const Location& where = {});
    /// Wraps an identifier returned by HDF5 (H5Dget_space, H5Aget_space).
    static Result<Space> adopt(hid_t id, const Location& where);

    hid_t id() const { return m_handle.id(); }
    Result<Dims> dims() const;
    /// Selects the block [start, start + count) (replacing any previous selection).
    Status selectBlock(const Dims& start, const Dims& count);

private:
    explicit Space(Handle handle) : m_handle(std::move(handle)) {}
    Handle m_handle;
};

/// A datatype. Predefined types are copied so every Type owns its identifier.
class Type {
public:
    static Type nativeFloat();
    static Type nativeDouble();
    static Type nativeInt32();
    static Type nativeInt64();
    static Type nativeUint8();
    /// Variable-length UTF-8 string (h5py's default for str).
    static Type utf8String();
    /// IEEE binary16, little-endian, defined the way h5py defines numpy.float16.
    static Type float16();
    /// bfloat16, little-endian: float32's sign, 8-bit exponent (bias 127) and upper 7 mantissa
    /// bits in 2 bytes. HDF5 converts it to and from other floats; h5py reads it as float32.
    static Type bfloat16();
    /// Whether this is a 2-byte float with bfloat16's 8-bit exponent (not binary16).
    bool isBfloat16() const;
    static Result<Type> adopt(hid_t id, const Location& where);

    hid_t id() const { return m_handle.id(); }
    H5T_class_t typeClass() const;
    size_t size() const;
    bool isVariableString() const;

private:
    explicit Type(Handle handle) : m_handle(std::move(handle)) {}
    static Type copyOf(hid_t predefined);
    Handle m_handle;
};

}  // namespace gatescope::data::h5
