// toFloat32 / toInt64: element-wise conversion of a mapped tensor. Reads through memcpy because the
// data region of a safetensors file need not be aligned for the element type.
#include <cstring>

#include <fmt/format.h>

#include "core/checkpoint/safetensors_file.h"
#include "data/common/float16.h"

namespace gatescope::core {
namespace {

template <class Stored, class Out, class Convert>
std::vector<Out> convertAll(const TensorInfo& tensor, Convert convert) {
    const std::size_t count = tensor.bytes.size() / sizeof(Stored);
    std::vector<Out> out(count);
    const std::byte* src = tensor.bytes.data();
    for (std::size_t i = 0; i < count; ++i) {
        Stored value;
        std::memcpy(&value, src + i * sizeof(Stored), sizeof(Stored));
        out[i] = convert(value);
    }
    return out;
}

Error wrongDType(const TensorInfo& tensor, const char* wanted) {
    return Error{ErrorKind::Shape,
                 fmt::format("dtype {} cannot be read as {}", dtypeName(tensor.dtype), wanted),
                 tensor.file.string(), tensor.name};
}

}  // namespace

Result<std::vector<float>> toFloat32(const TensorInfo& tensor) {
    switch (tensor.dtype) {
        case DType::F32:
            return convertAll<float, float>(tensor, [](float v) { return v; });
        case DType::F64:
            return convertAll<double, float>(tensor,
                                             [](double v) { return static_cast<float>(v); });
        case DType::F16:
            return convertAll<uint16_t, float>(tensor, data::halfToFloat);
        case DType::BF16:
            return convertAll<uint16_t, float>(tensor, data::bf16ToFloat);
        default:
            return wrongDType(tensor, "float32 (a floating dtype is needed)");
    }
}

Result<std::vector<int64_t>> toInt64(const TensorInfo& tensor) {
    auto widen = [](auto v) { return static_cast<int64_t>(v); };
    switch (tensor.dtype) {
        case DType::I64:
            return convertAll<int64_t, int64_t>(tensor, widen);
        case DType::I32:
            return convertAll<int32_t, int64_t>(tensor, widen);
        case DType::I16:
            return convertAll<int16_t, int64_t>(tensor, widen);
        case DType::I8:
            return convertAll<int8_t, int64_t>(tensor, widen);
        case DType::U8:
            return convertAll<uint8_t, int64_t>(tensor, widen);
        default:
            return wrongDType(tensor, "int64 (an integer dtype is needed)");
    }
}

}  // namespace gatescope::core
