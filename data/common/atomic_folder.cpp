#include "data/common/atomic_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "data/common/atomic_file.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

Error ioError(const fs::path& where, const std::string& what, int err) {
    return Error{ErrorKind::Io, what + ": " + std::strerror(err), where.string(), {}};
}

void syncFolder(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

const char* kPrevious = ".previous";

// Moves every file from `staged` into the existing `dir`; on a failure, undoes the moves made.
Status moveInto(const fs::path& staged, const fs::path& dir, const std::vector<NamedFile>& files) {
    // Hard links to the files about to be replaced, so a failed move can put them back.
    for (const auto& [name, contents] : files) {
        const fs::path old = dir / name;
        if (::access(old.c_str(), F_OK) != 0) continue;
        if (::link(old.c_str(), (staged / (name + kPrevious)).c_str()) != 0)
            return ioError(old, "cannot keep the previous file while replacing it", errno);
    }
    for (size_t i = 0; i < files.size(); ++i) {
        const fs::path from = staged / files[i].first, to = dir / files[i].first;
        if (::rename(from.c_str(), to.c_str()) == 0) continue;
        const Error error = ioError(to, "cannot move the file into place", errno);
        for (size_t j = 0; j < i; ++j) {
            const fs::path moved = dir / files[j].first,
                           previous = staged / (files[j].first + kPrevious);
            if (::rename(previous.c_str(), moved.c_str()) != 0) ::unlink(moved.c_str());
        }
        return error;
    }
    return Ok{};
}

}  // namespace

Status writeFilesAtomically(const fs::path& dir, const std::vector<NamedFile>& files) {
    for (const auto& [name, contents] : files)
        if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
            return Error{ErrorKind::Usage, "bad file name '" + name + "'", dir.string(), {}};
    const fs::path target = dir.has_filename() ? dir : dir.parent_path();
    const fs::path staged = target.string() + ".partial-" + std::to_string(::getpid());
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    fs::remove_all(staged, ec);
    if (!fs::create_directory(staged, ec))
        return Error{
            ErrorKind::Io, "cannot create the folder: " + ec.message(), staged.string(), {}};
    auto discard = [&](Status status) {
        std::error_code ignored;
        fs::remove_all(staged, ignored);
        return status;
    };
    for (const auto& [name, contents] : files)
        if (auto st = writeFileAtomically(staged / name, contents); !st) {
            Error error = st.error();
            error.file = (target / name).string();  // the name the user asked for
            return discard(error);
        }
    syncFolder(staged);
    if (!fs::exists(target, ec)) {
        if (::rename(staged.c_str(), target.c_str()) != 0)
            return discard(ioError(target, "cannot move the folder into place", errno));
        if (target.has_parent_path()) syncFolder(target.parent_path());
        return Ok{};
    }
    if (!fs::is_directory(target, ec))
        return discard(Error{ErrorKind::Io, "exists and is not a folder", target.string(), {}});
    auto moved = moveInto(staged, target, files);
    syncFolder(target);
    return discard(moved);
}

}  // namespace gatescope::data
