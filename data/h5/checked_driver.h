// A read-only HDF5 file driver for files from outside: it reads a file on disk (like HDF5's sec2
// driver) or an image in memory (like the core driver), and checks every global-heap collection
// HDF5 loads before HDF5 parses it. HDF5 1.10 walks a collection's objects trusting their sizes:
// a free-space object of size 0 makes it loop forever, an object running past the collection
// makes it read outside its buffer. Variable-length strings (every string attribute gatescope
// writes) live in such collections, so a few changed bytes in a trace could hang `info`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Makes `fapl` read through the checking driver: from the file named at H5Fopen, or, when
/// `image` is not null, from a copy of the `size` bytes at `image` (the name then only names
/// it). Read-only: writes fail. The caller holds the library lock. Internal errors only.
Status useCheckedDriver(hid_t fapl, const void* image, size_t size, const Location& where);

/// Reads `size` bytes at file address `addr` of `file` when it was opened through the checking
/// driver, without HDF5 parsing them (strings.cpp checks stored variable-length descriptors this
/// way). False when `file` uses another driver or the bytes are not all inside the file. The
/// caller holds the library lock.
bool readCheckedBytes(hid_t file, uint64_t addr, size_t size, uint8_t* out);

/// Whether the global-heap collection in `bytes` (starting at its "GCOL" signature, `size` bytes,
/// the collection's own size; 8-byte lengths) can be walked the way HDF5 1.10 walks it: every
/// step advances and every object, free space included, lies inside the collection. When not,
/// `why` says where it fails.
bool globalHeapCollectionIsSound(const uint8_t* bytes, size_t size, std::string& why);

/// The size of object `index` (not 0, the free space) of the global-heap collection in `bytes`,
/// which globalHeapCollectionIsSound accepted; -1 when it holds no such object.
int64_t globalHeapObjectSize(const uint8_t* bytes, size_t size, unsigned index);

}  // namespace gatescope::data::h5
