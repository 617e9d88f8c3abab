// The device queries of attention_cuda.h (how many GPUs, memory in use, which GPU), apart from
// the kernels: what `core::checkDevice` and the GPU benchmarks ask before launching anything.
#include <string>

#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda {

int deviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    return count;
}

int64_t deviceMemoryUsed() {
    size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return static_cast<int64_t>(totalBytes - freeBytes);
}

std::string deviceDescription() {
    int device = 0;
    cudaError_t error = cudaGetDevice(&device);
    cudaDeviceProp prop{};
    if (error == cudaSuccess) error = cudaGetDeviceProperties(&prop, device);
    if (error != cudaSuccess) return detail::cudaMessage(error, "deviceDescription");
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
           std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs)";
}

}  // namespace gatescope::kernels::cuda
