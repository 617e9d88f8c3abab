// Move-only owner of one HDF5 identifier, and Object: the base of File, Group and Dataset (things
// that have a path and can carry attributes). The RAII layer works the way HighFive wraps HDF5.
#pragma once

#include <hdf5.h>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Owns one HDF5 identifier of any kind and releases it (H5Idec_ref) in its destructor, under the
/// library lock. Move-only. Also remembers where it points, for error messages. Not synchronized:
/// one Handle must not be moved or closed by two threads at once (HDF5 calls are serialized
/// anyway).
class Handle {
public:
    Handle() = default;
    Handle(hid_t id, Location where) : m_id(id), m_where(std::move(where)) {}
    ~Handle() { reset(); }
    Handle(Handle&& other) noexcept;
    Handle& operator=(Handle&& other) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    hid_t id() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    const Location& where() const { return m_where; }

    /// Releases the identifier now and reports a failure (for files, closing flushes: write
    /// errors can surface here). A no-op on an empty handle.
    Status close();

private:
    void reset();

    hid_t m_id = H5I_INVALID_HID;
    Location m_where;
};

/// A file, group or dataset: an identifier plus its location. Move-only through Handle.
class Object {
public:
    hid_t id() const { return m_handle.id(); }
    bool valid() const { return m_handle.valid(); }
    const Location& where() const { return m_handle.where(); }
    Status close() { return m_handle.close(); }

protected:
    Object() = default;
    explicit Object(Handle handle) : m_handle(std::move(handle)) {}

    Handle m_handle;
};

}  // namespace gatescope::data::h5
