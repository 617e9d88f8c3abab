#include "core/nn/tensor_convert.h"

#include <cstring>

namespace gatescope::core {

FloatArray toFloatArray(const torch::Tensor& tensor) {
    auto t = tensor.to(torch::kFloat32).contiguous();
    FloatArray out;
    out.shape = t.sizes().vec();
    out.data.resize(static_cast<std::size_t>(t.numel()));
    if (t.numel() > 0) std::memcpy(out.data.data(), t.data_ptr<float>(), out.data.size() * 4);
    return out;
}

}  // namespace gatescope::core
