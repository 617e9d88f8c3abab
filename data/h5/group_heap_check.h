// A group's local heap checked before HDF5 1.10 looks names up in it. Groups in the original
// format keep their link names in a local heap; HDF5's metadata cache allocates the heap's data
// segment at the size the file states and, when that allocation fails, copied into a null buffer
// (a fuzzed trace: SIGSEGV in `gatescope info`). The heap must lie inside the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// A local heap's header read raw through the checking driver: its data segment's size and
/// address. nullopt when the bytes at `address` are not a local heap ("HEAP") or not readable.
struct LocalHeap {
    uint64_t dataSize = 0, dataAddress = 0;
};
std::optional<LocalHeap> readLocalHeap(hid_t file, uint64_t address, size_t offsets,
                                       size_t lengths);

/// Checks the local heap named by the symbol table message of the group whose object header is
/// at `address`. Ok for groups without one (newer link storage) and files not read through the
/// checking driver. Errors: Format, naming `where`. The caller holds the library lock.
Status checkGroupHeap(hid_t file, uint64_t address, const Location& where);

/// checkGroupHeap for the open object `group` (of any kind: non-groups pass).
Status checkGroupHeap(hid_t group, const Location& where);

}  // namespace gatescope::data::h5
