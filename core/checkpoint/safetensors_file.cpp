#include "core/checkpoint/safetensors_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_header.h"

namespace gatescope::core {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; big-endian hosts are not supported");

int64_t TensorInfo::numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

namespace {

Error ioError(const std::filesystem::path& path, std::string message) {
    return Error{ErrorKind::Io, std::move(message), path.string(), {}};
}

Error formatError(const std::filesystem::path& path, std::string message) {
    return Error{ErrorKind::Format, std::move(message), path.string(), {}};
}

// Closes the descriptor on every return path of open().
struct FdGuard {
    int fd = -1;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

Result<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::open(
    const std::filesystem::path& path) {
    FdGuard fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.fd < 0) {
        return ioError(path, fmt::format("cannot open: {}", std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) {
        return ioError(path, fmt::format("cannot stat: {}", std::strerror(errno)));
    }
    if (!S_ISREG(st.st_mode)) return ioError(path, "not a regular file");
    const auto fileSize = static_cast<uint64_t>(st.st_size);
    if (fileSize < 8) {
        return formatError(path, fmt::format("file is {} bytes, shorter than the 8-byte header "
                                             "length of a safetensors file (truncated?)",
                                             fileSize));
    }

    // Not make_shared: the constructor is private. The destructor unmaps on every error below.
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
    file->m_path = path;
    void* mapping = ::mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (mapping == MAP_FAILED) {
        return ioError(path, fmt::format("cannot memory-map: {}", std::strerror(errno)));
    }
    file->m_mapping = mapping;
    file->m_mappedSize = fileSize;

    const auto* bytes = static_cast<const std::byte*>(mapping);
    uint64_t headerLength = 0;
    std::memcpy(&headerLength, bytes, sizeof headerLength);
    if (headerLength > fileSize - 8) {
        return formatError(path, fmt::format("header length {} exceeds the {} bytes after the "
                                             "length field (truncated, or not a safetensors file)",
                                             headerLength, fileSize - 8));
    }
    if (headerLength > kMaxSafetensorsHeaderBytes) {
        return formatError(path, fmt::format("header length {} exceeds the format's limit of {} "
                                             "bytes (corrupt header)",
                                             headerLength, kMaxSafetensorsHeaderBytes));
    }
    const std::string_view headerText(reinterpret_cast<const char*>(bytes + 8), headerLength);
    const std::span<const std::byte> data(bytes + 8 + headerLength, fileSize - 8 - headerLength);
    Result<ParsedHeader> header = parseSafetensorsHeader(headerText, data, path);
    if (!header) return header.error();
    file->m_metadata = std::move(header->metadata);
    file->m_tensors = std::move(header->tensors);
    return std::shared_ptr<const SafetensorsFile>(std::move(file));
}

SafetensorsFile::~SafetensorsFile() {
    if (m_mapping != nullptr) ::munmap(m_mapping, m_mappedSize);
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
    auto it = m_tensors.find(name);
    return it == m_tensors.end() ? nullptr : &it->second;
}

}  // namespace gatescope::core
