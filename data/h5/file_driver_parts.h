// What gatescope's two HDF5 file drivers (checked_driver.h for reading, background_write_driver.h
// for writing) do alike: the address bookkeeping HDF5 asks of every driver, and finding a
// driver's own state behind an open file.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Fills the callbacks that only keep addresses, for a driver whose open file is `F`: a struct
/// with an H5FD_t first (HDF5 sees that), and `eoa` and `eof` members. Sets sec2's feature flags,
/// its free-list map and close degree, and get_handle to hand out the F itself (driverState()).
template <class F>
void fillAddressCallbacks(H5FD_class_t& cls) {
    cls.maxaddr = static_cast<haddr_t>(INT64_MAX);
    cls.fc_degree = H5F_CLOSE_WEAK;
    cls.query = [](const H5FD_t*, unsigned long* flags) -> herr_t {
        *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
                 H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
        return 0;
    };
    cls.get_eoa = [](const H5FD_t* file, H5FD_mem_t) {
        return reinterpret_cast<const F*>(file)->eoa;
    };
    cls.set_eoa = [](H5FD_t* file, H5FD_mem_t, haddr_t addr) -> herr_t {
        reinterpret_cast<F*>(file)->eoa = addr;
        return 0;
    };
    cls.get_eof = [](const H5FD_t* file, H5FD_mem_t) {
        return reinterpret_cast<const F*>(file)->eof;
    };
    cls.get_handle = [](H5FD_t* file, hid_t, void** handle) -> herr_t {
        *handle = file;
        return 0;
    };
    const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
    std::memcpy(cls.fl_map, map, sizeof map);
}

/// Opens `name` with open(2) `flags` (mode 0666 when it creates) as `file.fd`, and notes its
/// `device`, `inode` and size (`eof`). Empty when it could, else why not (nothing left open).
template <class F>
std::string openDescriptor(F& file, const char* name, int flags) {
    file.fd = ::open(name, flags | O_CLOEXEC, 0666);
    struct stat st {};
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0) {
        std::string why = fmt::format("cannot open '{}': {}", name, std::strerror(errno));
        if (file.fd >= 0) ::close(file.fd);
        file.fd = -1;
        return why;
    }
    file.device = st.st_dev;
    file.inode = st.st_ino;
    file.eof = static_cast<haddr_t>(st.st_size);
    return {};
}

/// The open-file state of `file` when it was opened through `driver` (a driver whose get_handle
/// fillAddressCallbacks set), else null. The caller holds the library lock; HDF5's error stack
/// is left clear.
inline void* driverState(hid_t file, hid_t driver) {
    const hid_t access = H5Fget_access_plist(file);
    if (access < 0) {
        H5Eclear2(H5E_DEFAULT);
        return nullptr;
    }
    void* handle = nullptr;
    const bool ours = driver >= 0 && H5Pget_driver(access) == driver;
    const herr_t rc = ours ? H5Fget_vfd_handle(file, access, &handle) : -1;
    H5Pclose(access);
    if (rc < 0) {
        H5Eclear2(H5E_DEFAULT);
        return nullptr;
    }
    return handle;
}

}  // namespace gatescope::data::h5
