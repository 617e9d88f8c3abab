// HDF5 files and groups.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/h5/handle.h"
#include "data/h5/property_list.h"

namespace gatescope::data::h5 {

/// An open HDF5 file. Move-only; closing (destructor or close()) closes every object still open in
/// it (strong close degree). Share it between threads only under the library lock.
class File : public Object {
public:
    File() = default;  ///< empty; valid() is false
    /// Creates `path` for writing, truncating any file already there, through the background-write
    /// driver (background_write_driver.h). Io error when it cannot.
    static Result<File> create(const std::string& path);
    /// Opens `path` read-only, through the checking driver (checked_driver.h). Io when the file is
    /// absent or unreadable, Format when it is not HDF5 or is truncated/corrupt, Unsupported for
    /// files with other than 8-byte lengths. `chunkCacheBytes` sizes HDF5's per-dataset chunk
    /// cache.
    static Result<File> openReadOnly(const std::string& path, size_t chunkCacheBytes);
    /// Opens the HDF5 file image `data` (`size` bytes) read-only in memory, through the checking
    /// driver (checked_driver.h) on a copy it takes, so `data` may go once this returns. `name`
    /// stands for the file in errors and names no file on disk. Format when the bytes are not
    /// HDF5 or are corrupt. For fuzzing and tests of the reader.
    static Result<File> openImage(const std::string& name, const void* data, size_t size,
                                  size_t chunkCacheBytes);

    /// Writes every dirty buffer of the file to the operating system, and waits for the writes
    /// handed to the driver's I/O thread (Io error when one failed).
    Status flush();

    /// For a file being abandoned after a failed or cancelled write: points its descriptor at an
    /// anonymous in-memory file, dropping the writes queued for the driver's I/O thread. The flush
    /// that closing performs then never reaches the disk, so a full disk cannot make the close fail
    /// (a failed close leaves the file open in HDF5), and the space of the file, once unlinked, is
    /// freed at once. Best effort: false when the driver's descriptor cannot be redirected. The
    /// file's contents are lost either way.
    bool detachFromDisk();

private:
    using Object::Object;
    Status requireEightByteLengths() const;
};

/// A group, opened or created under a file or another group. Move-only.
class Group : public Object {
public:
    Group() = default;  ///< empty; valid() is false
    static Result<Group> root(const File& file);
    /// Creates the direct child group `name` (which must not exist yet).
    static Result<Group> create(const Object& parent, std::string_view name);
    /// Opens the group at relative path `name` ("a/b" allowed). Missing when it is absent,
    /// Unsupported when a component is not a hard link (see exists()).
    static Result<Group> open(const Object& parent, std::string_view name);

    /// Names of the direct children (groups and datasets), in name order. A child that is not a
    /// hard link is an Unsupported error naming it (see exists()).
    Result<std::vector<std::string>> childNames() const;

private:
    using Object::Object;
};

/// Whether relative path `path` ("a/b/c") exists under `parent`, checked component by component.
/// Every component present must be a hard link: a soft, external or user-defined link is an
/// Unsupported error naming it (and an external link's target), never followed.
Result<bool> exists(const Object& parent, std::string_view path);

/// Removes the direct child link `name` of `parent` (a file being written); the object it named
/// goes once nothing else refers to it (HDF5 1.10 does not reuse its space). Io naming the link
/// when HDF5 cannot remove it.
Status removeLink(const Object& parent, std::string_view name);

}  // namespace gatescope::data::h5
