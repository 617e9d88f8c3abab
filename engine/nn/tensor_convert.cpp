#include "engine/nn/tensor_convert.h"

#include <cstring>

#include "kernels/cpu/cancel.h"

namespace gatescope::core {

FloatArray toFloatArray(const torch::Tensor& tensor) {
    kernels::throwIfCancelled();  // recording a layer copies arrays of N x width floats
    FloatArray out;
    if (tensor.is_cuda()) {
        // One device-to-host copy straight into the array (no intermediate host tensor).
        auto src = tensor.to(torch::kFloat32).contiguous();
        out.shape = src.sizes().vec();
        out.data.resize(static_cast<std::size_t>(src.numel()));
        if (src.numel() > 0)
            torch::from_blob(out.data.data(), out.shape, torch::kFloat32).copy_(src);
        return out;
    }
    auto t = tensor.to(torch::kFloat32).contiguous();
    out.shape = t.sizes().vec();
    out.data.resize(static_cast<std::size_t>(t.numel()));
    if (t.numel() > 0) std::memcpy(out.data.data(), t.data_ptr<float>(), out.data.size() * 4);
    return out;
}

}  // namespace gatescope::core
