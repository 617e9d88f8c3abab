// Attributes on files, groups and datasets: small typed values (strings, integers, string lists).
// Every function takes the library lock itself; errors name the owner's path plus "@name".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/h5/handle.h"
#include "data/h5/space.h"

namespace gatescope::data::h5 {

/// An open attribute. Move-only. Most callers use the free functions below instead.
class Attribute {
public:
    /// Opens attribute `name` of `owner`. Missing when absent.
    static Result<Attribute> open(const Object& owner, std::string_view name);

    hid_t id() const { return m_handle.id(); }
    const Location& where() const { return m_handle.where(); }
    Result<Type> type() const;
    Result<Dims> dims() const;

private:
    explicit Attribute(Handle handle) : m_handle(std::move(handle)) {}
    Handle m_handle;
};

/// Writes (or replaces) a scalar variable-length UTF-8 string attribute.
Status writeAttribute(const Object& owner, std::string_view name, std::string_view value);
/// Writes (or replaces) a scalar int64 attribute.
Status writeAttribute(const Object& owner, std::string_view name, int64_t value);
/// Writes (or replaces) a 1-D attribute of variable-length UTF-8 strings.
Status writeAttribute(const Object& owner, std::string_view name,
                      const std::vector<std::string>& values);

Result<bool> hasAttribute(const Object& owner, std::string_view name);
/// Reads a scalar string attribute, fixed- or variable-length (string_values.h: the stored type is
/// checked and bounded first). Missing when absent, Shape when it is not one string, Format when
/// its type is malformed, it is longer than `maxBytes` or HDF5 cannot read it.
Result<std::string> readStringAttribute(const Object& owner, std::string_view name,
                                        size_t maxBytes = size_t{1} << 20);
/// Reads a scalar (or one-element) integer attribute of an integer type of 1, 2, 4 or 8 bytes,
/// converted to int64 (values beyond it saturate). Missing when absent, Shape otherwise.
Result<int64_t> readIntAttribute(const Object& owner, std::string_view name);

}  // namespace gatescope::data::h5
