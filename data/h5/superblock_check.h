// The superblock and the object headers it names, checked before HDF5 1.10 opens a file from
// outside. HDF5 loads the root group's object header (and a superblock extension's) while it
// opens the file, and its metadata cache allocates every continuation chunk at the size the
// header states before reading it: a forged length asks for terabytes before any check of ours
// could run on an open file. The checking driver (checked_driver.h) runs this when it opens a
// file, on the file's own bytes.
#pragma once

#include <cstdint>
#include <string>

#include "data/h5/object_header.h"

namespace gatescope::data::h5 {

/// Why the file `bytes` reads (`fileSize` bytes) cannot be opened safely: a superblock whose
/// offset or length size gatescope cannot read, or a root group or superblock extension object
/// header that runs past the file or exceeds object_header.h's bounds. Empty when sound, and when
/// there is no superblock or no root address to follow (HDF5's own open reports those).
std::string superblockProblem(const FileBytes& bytes, uint64_t fileSize);

}  // namespace gatescope::data::h5
