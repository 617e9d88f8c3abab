#include "data/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace gatescope::data {

Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents) {
    const auto temp = path.string() + ".partial-" + std::to_string(::getpid());
    auto fail = [&](const char* what) -> Status {
        const std::string reason = std::strerror(errno);
        ::unlink(temp.c_str());
        return Error{ErrorKind::Io, std::string(what) + ": " + reason, path.string(), {}};
    };
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail("cannot create the file");
    std::size_t done = 0;
    while (done < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            return fail("cannot write the file");
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        ::close(fd);
        return fail("cannot flush the file");
    }
    if (::close(fd) != 0) return fail("cannot close the file");
    if (::rename(temp.c_str(), path.c_str()) != 0) return fail("cannot rename into place");
    return Ok{};
}

}  // namespace gatescope::data
