#include "data/h5/file.h"

#include "data/h5/access.h"
#include "data/h5/background_write_driver.h"
#include "data/h5/checked_driver.h"
#include "data/h5/group_heap_check.h"

#include <cstdio>

#include <fmt/format.h>
#include <filesystem>
#include <system_error>

namespace gatescope::data::h5 {

Result<File> File::create(const std::string& path) {
    auto lock = lockLibrary();
    Location where{path, ""};
    auto fapl = PropertyList::fileAccess(0, where);
    if (!fapl) return fapl.error();
    if (auto rc = useBackgroundWriteDriver(fapl->id(), where); !rc) return rc.error();
    auto id = checkId(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl->id()),
                      ErrorKind::Io, where, "cannot create HDF5 file");
    if (!id) return id.error();
    return File(Handle(*id, where));
}

Result<File> File::openReadOnly(const std::string& path, size_t chunkCacheBytes) {
    Location where{path, ""};
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error{ErrorKind::Io, "no such file", path, ""};
    if (std::filesystem::is_directory(path, ec))
        return Error{ErrorKind::Io, "is a directory, not a trace file", path, ""};
    if (FILE* probe = std::fopen(path.c_str(), "rb")) {
        std::fclose(probe);
    } else {
        return Error{ErrorKind::Io, "cannot open for reading (permissions?)", path, ""};
    }
    auto lock = lockLibrary();
    auto isHdf5 = checkTri(H5Fis_hdf5(path.c_str()), ErrorKind::Format, where,
                           "cannot probe for an HDF5 signature");
    if (!isHdf5) return isHdf5.error();
    if (!*isHdf5)
        return Error{ErrorKind::Format, "not an HDF5 file (no HDF5 signature found)", path, ""};
    auto fapl = PropertyList::fileAccess(chunkCacheBytes, where);
    if (!fapl) return fapl.error();
    if (auto rc = useCheckedDriver(fapl->id(), nullptr, 0, where); !rc) return rc.error();
    auto id = checkId(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl->id()), ErrorKind::Format, where,
                      "cannot open HDF5 file: truncated or corrupt");
    if (!id) return id.error();
    File file(Handle(*id, where));
    if (auto rc = file.requireEightByteLengths(); !rc) return rc.error();
    return file;
}

Result<File> File::openImage(const std::string& name, const void* data, size_t size,
                             size_t chunkCacheBytes) {
    Location where{name, ""};
    if (size == 0 || data == nullptr)
        return Error{ErrorKind::Format, "not an HDF5 file (empty)", name, ""};
    auto lock = lockLibrary();
    auto fapl = PropertyList::fileAccess(chunkCacheBytes, where);
    if (!fapl) return fapl.error();
    if (auto rc = useCheckedDriver(fapl->id(), data, size, where); !rc) return rc.error();
    auto id = checkId(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl->id()), ErrorKind::Format, where,
                      "cannot open HDF5 file image: not HDF5, truncated or corrupt");
    if (!id) return id.error();
    File file(Handle(*id, where));
    if (auto rc = file.requireEightByteLengths(); !rc) return rc.error();
    return file;
}

Status File::requireEightByteLengths() const {
    auto lock = lockLibrary();
    hid_t fcpl = H5Fget_create_plist(id());
    if (fcpl < 0) return makeError(ErrorKind::Format, where(), "cannot read creation properties");
    Handle owner(fcpl, where());
    size_t addressBytes = 0, lengthBytes = 0;
    auto rc = check(H5Pget_sizes(fcpl, &addressBytes, &lengthBytes), ErrorKind::Format, where(),
                    "cannot read the file's address and length sizes");
    if (!rc) return rc;
    if (lengthBytes != 8)
        return Error{ErrorKind::Unsupported,
                     fmt::format("HDF5 file with {}-byte lengths; gatescope reads files with the "
                                 "usual 8-byte lengths",
                                 lengthBytes),
                     where().file, ""};
    return Ok{};
}

Status File::flush() {
    auto lock = lockLibrary();
    return check(H5Fflush(id(), H5F_SCOPE_LOCAL), ErrorKind::Io, where(), "cannot flush file");
}

bool File::detachFromDisk() {
    auto lock = lockLibrary();
    return valid() && detachBackgroundWrites(id());
}

Result<Group> Group::root(const File& file) {
    auto lock = lockLibrary();
    Location where{file.where().file, "/"};
    auto id = checkId(H5Gopen2(file.id(), "/", H5P_DEFAULT), ErrorKind::Format, where,
                      "cannot open root group");
    if (!id) return id.error();
    Group root(Handle(*id, where));
    if (auto heap = checkGroupHeap(root.id(), where); !heap) return heap.error();
    return root;
}

Result<Group> Group::create(const Object& parent, std::string_view name) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto id = checkId(
        H5Gcreate2(parent.id(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        ErrorKind::Io, where, "cannot create group");
    if (!id) return id.error();
    return Group(Handle(*id, where));
}

Result<Group> Group::open(const Object& parent, std::string_view name) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    auto found = exists(parent, name);
    if (!found) return found.error();
    if (!*found) return Error{ErrorKind::Missing, "no such group", where.file, where.object};
    H5O_info_t info;
    auto rc = check(H5Oget_info_by_name2(parent.id(), std::string(name).c_str(), &info,
                                         H5O_INFO_BASIC, linkAccess()),
                    ErrorKind::Format, where, "cannot inspect object");
    if (!rc) return rc.error();
    if (info.type != H5O_TYPE_GROUP)
        return Error{ErrorKind::Shape, "expected a group, found another kind of object", where.file,
                     where.object};
    auto id = checkId(H5Gopen2(parent.id(), std::string(name).c_str(), groupAccess()),
                      ErrorKind::Format, where, "cannot open group");
    if (!id) return id.error();
    return Group(Handle(*id, where));
}

namespace {
struct Children {
    std::vector<std::string> names;
    std::string notHard;  // the first child that is not a hard link
};

herr_t collectName(hid_t, const char* name, const H5L_info_t* info, void* out) {
    auto* children = static_cast<Children*>(out);
    if (info->type != H5L_TYPE_HARD) {
        children->notHard = name;
        return 1;  // stop: the caller reports it
    }
    children->names.emplace_back(name);
    return 0;
}
}  // namespace

Result<std::vector<std::string>> Group::childNames() const {
    auto lock = lockLibrary();
    // HDF5 reads every name of a listing from the group's local heap.
    if (auto heap = checkGroupHeap(id(), where()); !heap) return heap.error();
    Children children;
    auto rc = check(H5Literate(id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collectName, &children),
                    ErrorKind::Format, where(), "cannot list group members");
    if (!rc) return rc.error();
    if (!children.notHard.empty()) {
        Location child{where().file, joinPath(where().object, children.notHard)};
        auto link = requireHardLink(id(), children.notHard, child);
        if (!link) return link.error();
        return makeError(ErrorKind::Format, child, "link changed while listing");
    }
    return std::move(children.names);
}

Result<bool> exists(const Object& parent, std::string_view path) {
    auto lock = lockLibrary();
    if (auto heap = checkGroupHeap(parent.id(), parent.where()); !heap) return heap.error();
    std::string prefix;
    size_t start = 0;
    while (start <= path.size()) {
        size_t slash = path.find('/', start);
        std::string_view part =
            path.substr(start, slash == std::string_view::npos ? slash : slash - start);
        if (!part.empty()) {
            if (!prefix.empty()) prefix += '/';
            prefix += part;
            Location where{parent.where().file, joinPath(parent.where().object, prefix)};
            auto found = checkTri(H5Lexists(parent.id(), prefix.c_str(), linkAccess()),
                                  ErrorKind::Format, where, "cannot look up link");
            if (!found || !*found) return found;
            // Checked before the next component goes through it.
            if (auto hard = requireHardLink(parent.id(), prefix, where); !hard) return hard.error();
            if (slash != std::string_view::npos) {  // the next component is looked up in it
                H5O_info_t info;
                if (H5Oget_info_by_name2(parent.id(), prefix.c_str(), &info, H5O_INFO_BASIC,
                                         linkAccess()) < 0)
                    return makeError(ErrorKind::Format, where, "cannot inspect object");
                const hid_t file = H5Iget_file_id(parent.id());
                if (file < 0) return makeError(ErrorKind::Format, where, "cannot get the file");
                Handle fileOwner(file, where);
                if (info.type == H5O_TYPE_GROUP)
                    if (auto heap = checkGroupHeap(file, info.addr, where); !heap)
                        return heap.error();
            }
        }
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return !prefix.empty();
}

Status removeLink(const Object& parent, std::string_view name) {
    auto lock = lockLibrary();
    Location where{parent.where().file, joinPath(parent.where().object, name)};
    return check(H5Ldelete(parent.id(), std::string(name).c_str(), H5P_DEFAULT), ErrorKind::Io,
                 where, "cannot remove link");
}

}  // namespace gatescope::data::h5
