// The device queries of attention_cuda.h (how many GPUs, memory in use, which GPU), apart from
// the kernels: what `core::checkDevice` and the GPU benchmarks ask before launching anything.
#include <cstdio>
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
    char bus[32] = {};
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID,
                  prop.pciDeviceID);
    // nvidia-smi's spelling of the UUID: GPU-8-4-4-4-12 hex digits.
    std::string uuid = "GPU-";
    for (int i = 0; i < 16; ++i) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(prop.uuid.bytes[i]));
        uuid += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9) uuid += '-';
    }
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
           std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) +
           " SMs, PCI " + bus + ", " + uuid + ")";
}

std::string useDevice(int index) {
    const cudaError_t error = cudaSetDevice(index);
    if (error == cudaSuccess) return {};
    cudaGetLastError();
    return detail::cudaMessage(error, "cudaSetDevice");
}

}  // namespace gatescope::kernels::cuda
