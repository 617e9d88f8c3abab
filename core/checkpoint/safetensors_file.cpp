#include "core/checkpoint/safetensors_file.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_header.h"
#include "data/common/input_file.h"

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

}  // namespace

Result<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::open(
    const std::filesystem::path& path) {
    // Regular files only (a FIFO or a device would block or never end), opened without blocking.
    Result<data::InputFile> input = data::InputFile::open(path);
    if (!input) return input.error();
    const uint64_t fileSize = input->size();
    if (fileSize < 8) {
        return formatError(path, fmt::format("file is {} bytes, shorter than the 8-byte header "
                                             "length of a safetensors file (truncated?)",
                                             fileSize));
    }

    // Not make_shared: the constructor is private. The destructor unmaps on every error below.
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
    file->m_path = path;
    void* mapping = ::mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, input->fd(), 0);
    if (mapping == MAP_FAILED) {
        return ioError(path, fmt::format("cannot memory-map: {}", std::strerror(errno)));
    }
    file->m_mapping = mapping;
    file->m_mappedSize = fileSize;

    const std::span<const std::byte> bytes(static_cast<const std::byte*>(mapping), fileSize);
    Result<ParsedHeader> header = parseSafetensorsBytes(bytes, path);
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
