// The HDF5 file driver of files gatescope writes: HDF5's sec2 driver (one POSIX descriptor,
// pread/pwrite), except that a raw-data write of bytes handed over with RawBytesHandoff is queued
// and written by an I/O thread of the file, so the calling thread goes on with HDF5's
// bookkeeping (chunk indexes, creating the next datasets) while the kernel copies the bytes into
// the page cache. The 760M's 16k GPU trace was written 1.05x faster, its 64k trace 1.12x
// (docs/benchmarks.md, session 27).
//
// Order: reads and other writes that overlap a queued write, truncate, flush and close wait for
// the queue to drain first, so HDF5 sees the file as if every write had been done in place.
// Errors: a failed queued write fails the next write, flush, truncate or close of the file (an
// Io error naming the address and errno's text), and every one after it.
#pragma once

#include <vector>

#include "data/h5/library.h"

namespace gatescope::data::h5 {

/// Makes `fapl` use the background-write driver. The caller holds the library lock. Internal
/// errors only.
Status useBackgroundWriteDriver(hid_t fapl, const Location& where);

/// While alive, lets a file using the background-write driver take `bytes` over when the calling
/// thread's next raw-data write (H5Dwrite_chunk) writes exactly them (the same pointer and
/// size): `bytes` is then left empty and is written later by the file's I/O thread. Bytes of any
/// other write, or with another driver, are written in place as usual and stay in `bytes`. At
/// most one per thread at a time; `bytes` must outlive it.
class RawBytesHandoff {
public:
    explicit RawBytesHandoff(std::vector<unsigned char>& bytes);
    ~RawBytesHandoff();
    RawBytesHandoff(const RawBytesHandoff&) = delete;
    RawBytesHandoff& operator=(const RawBytesHandoff&) = delete;
};

/// For a file being abandoned: drops the queued writes, ignores the I/O thread's errors from
/// now on, and points the file's descriptor at an anonymous in-memory file, so that closing it
/// never reaches the disk (see File::detachFromDisk). False when `file` does not use this driver
/// or the descriptor cannot be redirected. The caller holds the library lock.
bool detachBackgroundWrites(hid_t file);

}  // namespace gatescope::data::h5
