#include "core/nn/device.h"

#include <fmt/format.h>

#include "core/nn/model_error.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/attention_cuda.h"
#endif

namespace gatescope::core {

Result<std::string> checkDevice(std::string_view device) {
    if (device == "cpu") return std::string("cpu");
    if (device != "cuda") {
        return Error{
            ErrorKind::Usage, fmt::format("unknown device '{}' (cpu or cuda)", device), {}, {}};
    }
#ifndef GATESCOPE_HAS_CUDA
    return Error{ErrorKind::Unsupported,
                 "--device cuda: this build has no CUDA kernels (configure with nvcc found and "
                 "GATESCOPE_CUDA=ON; docs/gpu.md)",
                 {},
                 {}};
#else
    if (kernels::cuda::deviceCount() == 0) {
        return Error{ErrorKind::Unsupported,
                     "--device cuda: no CUDA device is visible on this machine (no GPU, or no "
                     "driver); use --device cpu",
                     {},
                     {}};
    }
    if (!torch::cuda::is_available()) {
        return Error{ErrorKind::Unsupported,
                     "--device cuda: the LibTorch this build links has no CUDA support (build "
                     "against a CUDA LibTorch, e.g. PyTorch's: docs/gpu.md)",
                     {},
                     {}};
    }
    return "cuda: " + kernels::cuda::deviceDescription();
#endif
}

torch::Device computeDevice(const RunOptions& options) {
    auto checked = checkDevice(options.device);
    if (!checked) throw ModelError(checked.error());
    return options.device == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
}

torch::Tensor onDevice(const torch::Tensor& t, const torch::Device& device) {
    if (!t.defined() || t.device() == device) return t;
    return t.to(device);
}

std::string attentionPathOn(const torch::Device& device, const std::string& cpuPath,
                            const std::string& cudaPath) {
    return device.is_cuda() ? cudaPath : cpuPath;
}

}  // namespace gatescope::core
