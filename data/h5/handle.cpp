#include "data/h5/handle.h"

namespace gatescope::data::h5 {

Handle::Handle(Handle&& other) noexcept : m_id(other.m_id), m_where(std::move(other.m_where)) {
    other.m_id = H5I_INVALID_HID;
}

Handle& Handle::operator=(Handle&& other) noexcept {
    if (this != &other) {
        reset();
        m_id = other.m_id;
        m_where = std::move(other.m_where);
        other.m_id = H5I_INVALID_HID;
    }
    return *this;
}

Status Handle::close() {
    if (!valid()) return Ok{};
    auto lock = lockLibrary();
    hid_t id = m_id;
    m_id = H5I_INVALID_HID;
    return check(H5Idec_ref(id), ErrorKind::Io, m_where, "cannot close");
}

void Handle::reset() {
    if (!valid()) return;
    auto lock = lockLibrary();
    // A destructor cannot report; an identifier already closed by its file (strong close) lands
    // here.
    if (H5Idec_ref(m_id) < 0) H5Eclear2(H5E_DEFAULT);
    m_id = H5I_INVALID_HID;
}

}  // namespace gatescope::data::h5
