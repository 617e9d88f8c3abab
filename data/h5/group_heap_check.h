// A group's local heap checked before HDF5 1.10 looks names up in it. Groups in the original
// format keep their link names in a local heap; HDF5's metadata cache allocates the heap's data
// segment at the size the file states and, when that allocation fails, copied into a null buffer
// (a fuzzed trace: SIGSEGV in `gatescope info`). The heap must lie inside the file.
#pragma once

#include <cstdint>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Checks the local heap named by the symbol table message of the group whose object header is
/// at `address`. Ok for groups without one (newer link storage) and files not read through the
/// checking driver. Errors: Format, naming `where`. The caller holds the library lock.
Status checkGroupHeap(hid_t file, uint64_t address, const Location& where);

/// checkGroupHeap for the open object `group` (of any kind: non-groups pass).
Status checkGroupHeap(hid_t group, const Location& where);

}  // namespace gatescope::data::h5
