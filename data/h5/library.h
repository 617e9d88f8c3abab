// The single entry point into the HDF5 C library: the process-wide lock, one-time initialization
// and the one place where HDF5 return codes become gatescope::Error values.
#pragma once

#include <hdf5.h>

#include <mutex>
#include <string>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::data::h5 {

/// Where an HDF5 call acted: copied into every Error so messages name the file and the object.
struct Location {
    std::string file;  ///< path of the HDF5 file on disk
    std::string
        object;  ///< path of the object inside the file ("/layers/000/factors/q"), may be empty
};

/// Appends a child name to an object path ("/a" + "b" -> "/a/b").
std::string joinPath(std::string_view parent, std::string_view child);

/// Takes the process-wide lock that every HDF5 call must hold. Debian's HDF5 is built without
/// thread safety, so readers and writers on every thread share this one lock. It is recursive, so
/// wrappers may nest. The first call also initializes the library for gatescope: HDF5's automatic
/// error printing is switched off (errors come back as values) and the zstd/lz4 filters are
/// registered. Never throws.
std::unique_lock<std::recursive_mutex> lockLibrary();

/// Builds an Error of `kind` at `where`: `what` followed by the innermost messages of the HDF5
/// error stack, which is then cleared. The caller holds the library lock.
Error makeError(ErrorKind kind, const Location& where, std::string_view what);

/// The one check for HDF5 return codes: a negative `rc` becomes makeError(kind, where, what).
Status check(herr_t rc, ErrorKind kind, const Location& where, std::string_view what);
/// Same for calls that return an identifier.
Result<hid_t> checkId(hid_t id, ErrorKind kind, const Location& where, std::string_view what);
/// Same for tri-state calls (H5Lexists, H5Aexists, ...): negative is an error, else a bool.
Result<bool> checkTri(htri_t rc, ErrorKind kind, const Location& where, std::string_view what);

}  // namespace gatescope::data::h5
