// A memory-mapped safetensors file: 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then raw little-endian data. Nothing in it can execute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/checkpoint/dtype.h"
#include "data/common/result.h"

namespace gatescope::core {

/// One tensor inside a mapped file. `bytes` points into the mapping and stays valid while the
/// owning SafetensorsFile (or Checkpoint) lives.
struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::span<const std::byte> bytes;
    std::filesystem::path file;

    int64_t numel() const;
};

/// Read-only mapping of one .safetensors file. Immutable after open(): safe to share across
/// threads. Errors (all name the file, and the tensor where one is at fault): the file cannot be
/// opened or mapped; it is shorter than its header says (truncated); the header is not JSON or
/// lacks dtype/shape/data_offsets; a dtype we do not read; offsets out of range, overlapping, or
/// disagreeing with dtype x shape.
class SafetensorsFile {
public:
    static Result<std::shared_ptr<const SafetensorsFile>> open(const std::filesystem::path& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    /// The header's "__metadata__" entries (string to string).
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    /// All tensors, sorted by name.
    const std::map<std::string, TensorInfo>& tensors() const { return m_tensors; }
    /// nullptr when absent.
    const TensorInfo* find(const std::string& name) const;

private:
    SafetensorsFile() = default;
    std::filesystem::path m_path;
    void* m_mapping = nullptr;
    std::size_t m_mappedSize = 0;
    std::map<std::string, std::string> m_metadata;
    std::map<std::string, TensorInfo> m_tensors;
};

/// Converts any floating tensor (F64/F32/F16/BF16) to float32, row-major. Error for other dtypes.
Result<std::vector<float>> toFloat32(const TensorInfo& tensor);
/// Converts an integer tensor (I64/I32/I16/I8/U8) to int64. Error for other dtypes.
Result<std::vector<int64_t>> toInt64(const TensorInfo& tensor);

}  // namespace gatescope::core
