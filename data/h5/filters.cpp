#include "data/h5/filters.h"

#include <hdf5.h>

#include "data/h5/library.h"

namespace gatescope::data::h5 {
namespace detail {
size_t zstdFilter(unsigned, size_t, const unsigned[], size_t, size_t*, void**);
size_t lz4Filter(unsigned, size_t, const unsigned[], size_t, size_t*, void**);
}  // namespace detail

namespace {
thread_local uint64_t t_expectedChunkBytes = 0;
}  // namespace

ExpectedChunkBytes::ExpectedChunkBytes(uint64_t bytes) : m_previous(t_expectedChunkBytes) {
    t_expectedChunkBytes = bytes;
}

ExpectedChunkBytes::~ExpectedChunkBytes() {
    t_expectedChunkBytes = m_previous;
}

uint64_t ExpectedChunkBytes::current() {
    return t_expectedChunkBytes;
}

Status registerCompressionFilters() {
    static const H5Z_class2_t zstd = {H5Z_CLASS_T_VERS,
                                      static_cast<H5Z_filter_t>(kZstdFilterId),
                                      1,
                                      1,
                                      "Zstandard compression: http://www.zstd.net",
                                      nullptr,
                                      nullptr,
                                      detail::zstdFilter};
    static const H5Z_class2_t lz4 = {
        H5Z_CLASS_T_VERS,
        static_cast<H5Z_filter_t>(kLz4FilterId),
        1,
        1,
        "HDF5 lz4 filter; see http://www.hdfgroup.org/services/contributions.html",
        nullptr,
        nullptr,
        detail::lz4Filter};
    Location where{"", "filter registry"};
    auto rc = check(H5Zregister(&zstd), ErrorKind::Internal, where, "cannot register zstd filter");
    if (!rc) return rc;
    return check(H5Zregister(&lz4), ErrorKind::Internal, where, "cannot register lz4 filter");
}

bool filterAvailable(int filterId) {
    auto lock = lockLibrary();
    auto id = static_cast<H5Z_filter_t>(filterId);
    if (H5Zfilter_avail(id) <= 0) return false;
    unsigned info = 0;
    if (H5Zget_filter_info(id, &info) < 0) return false;
    return (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED) && (info & H5Z_FILTER_CONFIG_DECODE_ENABLED);
}

}  // namespace gatescope::data::h5
