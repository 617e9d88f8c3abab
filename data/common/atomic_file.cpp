#include "data/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace gatescope::data {
namespace {

/// fsync of an open-able path (a file, or a folder with O_DIRECTORY); false with errno set.
bool syncPath(const std::filesystem::path& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return false;
    const bool synced = ::fsync(fd) == 0;
    const int savedErrno = errno;
    ::close(fd);
    errno = savedErrno;
    return synced;
}

Status removeAndFail(const std::filesystem::path& temp, const std::filesystem::path& path,
                     const char* what) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp.c_str());
    return Error{ErrorKind::Io, std::string(what) + ": " + reason, path.string(), {}};
}

}  // namespace

std::filesystem::path partialPath(const std::filesystem::path& path) {
    return path.string() + ".partial-" + std::to_string(::getpid());
}

Status commitFile(const std::filesystem::path& temp, const std::filesystem::path& path) {
    if (!syncPath(temp, O_RDONLY)) return removeAndFail(temp, path, "cannot flush the file");
    if (::rename(temp.c_str(), path.c_str()) != 0)
        return removeAndFail(temp, path, "cannot rename into place");
    const auto folder = path.parent_path();
    (void)syncPath(folder.empty() ? "." : folder, O_RDONLY | O_DIRECTORY);
    return Ok{};
}

Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents) {
    const auto temp = partialPath(path);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return removeAndFail(temp, path, "cannot create the file");
    std::size_t done = 0;
    while (done < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            const int savedErrno = errno;
            ::close(fd);
            errno = savedErrno;
            return removeAndFail(temp, path, "cannot write the file");
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return removeAndFail(temp, path, "cannot close the file");
    return commitFile(temp, path);
}

}  // namespace gatescope::data
