#include "engine/nn/device.h"

#include <cstdlib>

#include <fmt/format.h>

#include "engine/nn/model_error.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/attention_cuda.h"
#endif

namespace gatescope::core {

std::optional<int> cudaDeviceIndex(std::string_view device) {
    if (device == "cuda") return 0;
    constexpr std::string_view prefix = "cuda:";
    if (!device.starts_with(prefix) || device.size() == prefix.size() ||
        device.size() > prefix.size() + 4)
        return std::nullopt;
    int index = 0;
    for (char c : device.substr(prefix.size())) {
        if (c < '0' || c > '9') return std::nullopt;
        index = index * 10 + (c - '0');
    }
    return index;
}

int visibleCudaDevices() {
#ifdef GATESCOPE_HAS_CUDA
    return kernels::cuda::deviceCount();
#else
    return 0;
#endif
}

Result<std::string> checkDevice(std::string_view device) {
    if (device == "cpu") return std::string("cpu");
    const auto index = cudaDeviceIndex(device);
    if (!index) {
        return Error{ErrorKind::Usage,
                     fmt::format("unknown device '{}' (cpu, cuda or cuda:N)", device),
                     {},
                     {}};
    }
#ifndef GATESCOPE_HAS_CUDA
    return Error{ErrorKind::Unsupported,
                 fmt::format("--device {}: this build has no CUDA kernels (configure with nvcc "
                             "found and GATESCOPE_CUDA=ON; docs/gpu.md)",
                             device),
                 {},
                 {}};
#else
    const int count = kernels::cuda::deviceCount();
    if (count == 0) {
        return Error{ErrorKind::Unsupported,
                     fmt::format("--device {}: no CUDA device is visible on this machine (no GPU, "
                                 "or no driver); use --device cpu",
                                 device),
                     {},
                     {}};
    }
    if (*index >= count) {
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        return Error{ErrorKind::Usage,
                     fmt::format("--device {}: {} CUDA device{} visible (cuda:0{}){}", device,
                                 count, count == 1 ? " is" : "s are",
                                 count > 1 ? fmt::format("..cuda:{}", count - 1) : "",
                                 visible ? fmt::format("; CUDA_VISIBLE_DEVICES={}", visible) : ""),
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
    if (auto e = kernels::cuda::useDevice(*index); !e.empty())
        return Error{ErrorKind::Unsupported, fmt::format("--device {}: {}", device, e), {}, {}};
    return fmt::format("cuda:{}: {}", *index, kernels::cuda::deviceDescription());
#endif
}

torch::Device computeDevice(const RunOptions& options) {
    auto checked = checkDevice(options.device);
    if (!checked) throw ModelError(checked.error());
    const auto index = cudaDeviceIndex(options.device);
    return index ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(*index))
                 : torch::Device(torch::kCPU);
}

torch::Tensor onDevice(const torch::Tensor& t, const torch::Device& device) {
    if (!t.defined() || t.device() == device) return t;
    return t.to(device);
}

void DeviceMover::embeddingsAndHead(torch::Tensor& embeddings, Linear& head) const {
    const bool tied = head.weight.is_same(embeddings);
    (*this)(embeddings);
    if (tied) {
        head = Linear{};
        head.weight = embeddings;
    } else {
        (*this)(head);
    }
}

std::string attentionPathOn(const torch::Device& device, const std::string& cpuPath,
                            const std::string& cudaPath) {
    return device.is_cuda() ? cudaPath : cpuPath;
}

}  // namespace gatescope::core
