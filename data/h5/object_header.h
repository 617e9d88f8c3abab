// An object header's messages read from the file's bytes, without HDF5 decoding them: the
// checking driver's raw reads (checked_driver.h) of the prefix and every chunk, continuation
// chunks followed. HDF5 1.10 decodes attribute messages trusting the sizes inside them (a trace
// with a few changed bytes made it read past a buffer in H5Aexists), and converts string
// attributes trusting their stored lengths; attribute_check.h looks at the messages first.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

struct RawMessage {
    unsigned type = 0;          ///< 0x000C: attribute, 0x0010: continuation, ...
    unsigned flags = 0;         ///< bit 1: shared (the data is a reference, not the message)
    std::vector<uint8_t> data;  ///< the message's own bytes
};

/// Reads `size` bytes at file address `address` into `out`; false when they are not all inside
/// the file.
using FileBytes = std::function<bool(uint64_t address, size_t size, uint8_t* out)>;

/// The messages of the object header at `address` of the file `bytes` reads, in file order.
/// Errors as below.
Result<std::vector<RawMessage>> readObjectHeader(const FileBytes& bytes, uint64_t address,
                                                 size_t addressBytes, size_t lengthBytes,
                                                 const Location& where);

/// The messages of the object header at `address` of `file` (version 1, or version 2 with its
/// "OHDR"/"OCHK" chunks), in file order. nullopt when `file` is not read through the checking
/// driver. Errors (Format, naming `where`): a prefix, chunk or message that runs past its chunk
/// or the file, an unknown header version, more than 4096 chunks or 64 MiB of header. The caller
/// holds the library lock.
Result<std::optional<std::vector<RawMessage>>> readObjectHeader(hid_t file, uint64_t address,
                                                                size_t addressBytes,
                                                                size_t lengthBytes,
                                                                const Location& where);

}  // namespace gatescope::data::h5
