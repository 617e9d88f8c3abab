#include "data/common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace gatescope::data {

namespace {

Error ioError(const std::filesystem::path& path, std::string message) {
    return Error{ErrorKind::Io, std::move(message), path.string(), {}};
}

Error errnoError(const std::filesystem::path& path, const char* action, int error) {
    if (error == ENOENT) return ioError(path, "no such file or directory");
    return ioError(path, fmt::format("{}: {}", action, std::strerror(error)));
}

Error notRegular(const std::filesystem::path& path, mode_t mode) {
    return ioError(path, fmt::format("not a regular file ({})", describeFileType(mode)));
}

}  // namespace

const char* describeFileType(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG:
            return "regular file";
        case S_IFDIR:
            return "directory";
        case S_IFIFO:
            return "FIFO";
        case S_IFCHR:
            return "character device";
        case S_IFBLK:
            return "block device";
        case S_IFSOCK:
            return "socket";
        case S_IFLNK:
            return "symbolic link";
        default:
            return "unknown file type";
    }
}

std::string formatBytes(uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return fmt::format("{} bytes", bytes);
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 6) {
        value /= 1024;
        ++unit;
    }
    return fmt::format("{:.1f} {}", value, units[unit]);
}

Status checkRegularFile(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errnoError(path, "cannot stat", errno);
    if (!S_ISREG(st.st_mode)) return notRegular(path, st.st_mode);
    return Ok{};
}

Result<InputFile> InputFile::open(const std::filesystem::path& path) {
    // Refused from the stat first: opening some devices has effects of its own.
    if (auto st = checkRegularFile(path); !st) return st.error();
    // O_NONBLOCK: should the path become a FIFO after the stat, open() still returns at once.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return errnoError(path, "cannot open", errno);
    InputFile file;
    file.m_fd = fd;
    file.m_path = path;
    struct stat st {};
    if (::fstat(fd, &st) != 0) return errnoError(path, "cannot stat", errno);
    if (!S_ISREG(st.st_mode)) return notRegular(path, st.st_mode);
    // Regular files ignore O_NONBLOCK; cleared anyway so that reads are plain blocking reads.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    file.m_size = static_cast<uint64_t>(st.st_size);
    return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size), m_path(std::move(other.m_path)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_size = other.m_size;
        m_path = std::move(other.m_path);
    }
    return *this;
}

InputFile::~InputFile() {
    if (m_fd >= 0) ::close(m_fd);
}

Result<std::string> InputFile::readAll(uint64_t maxBytes, std::string_view what) const {
    if (m_size > maxBytes) {
        return Error{ErrorKind::Format,
                     fmt::format("is {} ({} bytes), more than the {} read for {}",
                                 formatBytes(m_size), m_size, formatBytes(maxBytes),
                                 what.empty() ? std::string_view("this kind of file") : what),
                     m_path.string(),
                     {}};
    }
    std::string bytes(static_cast<std::size_t>(m_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n =
            ::pread(m_fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errnoError(m_path, "read error", errno);
        if (n == 0) {
            return ioError(m_path, fmt::format("the file shrank while it was read ({} of {} bytes)",
                                               done, bytes.size()));
        }
        done += static_cast<std::size_t>(n);
    }
    return bytes;
}

Result<std::string> readRegularFile(const std::filesystem::path& path, uint64_t maxBytes,
                                    std::string_view what) {
    auto file = InputFile::open(path);
    if (!file) return file.error();
    return file->readAll(maxBytes, what);
}

}  // namespace gatescope::data
