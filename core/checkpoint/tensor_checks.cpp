#include "core/checkpoint/tensor_checks.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/checkpoint/safetensors_header.h"

namespace gatescope::core {
namespace {

std::string weightsLocation(const Checkpoint& checkpoint) {
    const std::vector<std::filesystem::path> files = checkpoint.weightFiles();
    return files.size() == 1 ? files.front().string() : checkpoint.dir().string();
}

std::string dtypeList(const std::vector<DType>& dtypes) {
    std::string out;
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
        if (i > 0) out += (i + 1 == dtypes.size()) ? " or " : ", ";
        out += dtypeName(dtypes[i]);
    }
    return out;
}

}  // namespace

Result<const TensorInfo*> requireTensor(const Checkpoint& checkpoint, const std::string& name,
                                        const std::vector<DType>& dtypes,
                                        const std::vector<int64_t>& shape) {
    const TensorInfo* info = checkpoint.find(name);
    if (info == nullptr) {
        return Error{ErrorKind::Missing,
                     fmt::format("tensor missing from the checkpoint (expected shape {})",
                                 formatShape(shape)),
                     weightsLocation(checkpoint), name};
    }
    if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), info->dtype) == dtypes.end()) {
        return Error{
            ErrorKind::Shape,
            fmt::format("expected dtype {}, got {}", dtypeList(dtypes), dtypeName(info->dtype)),
            info->file.string(), name};
    }
    if (info->shape != shape) {
        return Error{
            ErrorKind::Shape,
            fmt::format("expected shape {} got {}", formatShape(shape), formatShape(info->shape)),
            info->file.string(), name};
    }
    return info;
}

Status expectTensor(const Checkpoint& checkpoint, const std::string& name,
                    const std::vector<DType>& dtypes, const std::vector<int64_t>& shape) {
    Result<const TensorInfo*> info = requireTensor(checkpoint, name, dtypes, shape);
    if (!info) return info.error();
    return Ok{};
}

Status expectNoUnexpectedTensors(const Checkpoint& checkpoint, const std::set<std::string>& used) {
    std::vector<std::string> unexpected;
    for (const std::string& name : checkpoint.tensorNames()) {
        if (used.count(name) == 0) unexpected.push_back(name);
    }
    if (unexpected.empty()) return Ok{};
    const TensorInfo* first = checkpoint.find(unexpected.front());
    return Error{
        ErrorKind::Format,
        fmt::format("unexpected tensor: the model ({}) does not use it{}", checkpoint.modelType(),
                    unexpected.size() > 1
                        ? fmt::format(" ({} unexpected tensors in all)", unexpected.size())
                        : std::string()),
        first != nullptr ? first->file.string() : checkpoint.dir().string(), unexpected.front()};
}

}  // namespace gatescope::core
