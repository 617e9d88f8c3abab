#include "kernels/cuda/async_copy.h"

#include <algorithm>

#include "kernels/cuda/cuda_common.cuh"

namespace gatescope::kernels::cuda {

namespace {

std::string message(cudaError_t error, const char* what) {
    return error == cudaSuccess ? std::string() : detail::cudaMessage(error, what);
}

}  // namespace

std::string createStream(void** stream) {
    cudaStream_t s = nullptr;
    const cudaError_t error = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    *stream = error == cudaSuccess ? s : nullptr;
    return message(error, "cudaStreamCreateWithFlags");
}

void destroyStream(void* stream) {
    if (stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

std::string synchronizeStream(void* stream) {
    return message(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)),
                   "cudaStreamSynchronize");
}

std::string createEvent(void** event) {
    cudaEvent_t e = nullptr;
    const cudaError_t error = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    *event = error == cudaSuccess ? e : nullptr;
    return message(error, "cudaEventCreateWithFlags");
}

void destroyEvent(void* event) {
    if (event) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

std::string recordEvent(void* event, void* stream) {
    return message(
        cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)),
        "cudaEventRecord");
}

std::string streamWaitEvent(void* stream, void* event) {
    return message(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0),
        "cudaStreamWaitEvent");
}

std::string synchronizeEvent(void* event) {
    return message(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
}

std::string allocPinned(std::size_t bytes, void** ptr) {
    *ptr = nullptr;
    return message(cudaMallocHost(ptr, bytes), "cudaMallocHost");
}

void freePinned(void* ptr) {
    if (ptr) cudaFreeHost(ptr);
}

std::string copyToHostAsync(void* hostDst, const void* deviceSrc, std::size_t bytes, void* stream) {
    if (bytes == 0) return {};
    return message(cudaMemcpyAsync(hostDst, deviceSrc, bytes, cudaMemcpyDeviceToHost,
                                   static_cast<cudaStream_t>(stream)),
                   "cudaMemcpyAsync (device to host)");
}

std::string copyCausalBandsToHostAsync(float* hostDst, const float* deviceSrc, int count,
                                       std::int64_t side, std::int64_t tile, void* stream) {
    if (count <= 0 || side <= 0) return {};
    if (tile <= 0) return "copyCausalBandsToHostAsync: tile must be positive";
    const size_t pitch = static_cast<size_t>(side) * sizeof(float);
    for (std::int64_t r0 = 0; r0 < side; r0 += tile) {
        // One 3-D copy per band: its rows of every grid, up to the band's diagonal tile.
        cudaMemcpy3DParms copy{};
        copy.srcPtr = make_cudaPitchedPtr(const_cast<float*>(deviceSrc), pitch, pitch, side);
        copy.dstPtr = make_cudaPitchedPtr(hostDst, pitch, pitch, side);
        copy.srcPos = copy.dstPos = make_cudaPos(0, static_cast<size_t>(r0), 0);
        const std::int64_t width = std::min(side, r0 + tile);
        copy.extent = make_cudaExtent(static_cast<size_t>(width) * sizeof(float),
                                      static_cast<size_t>(std::min(tile, side - r0)),
                                      static_cast<size_t>(count));
        copy.kind = cudaMemcpyDeviceToHost;
        if (auto e = message(cudaMemcpy3DAsync(&copy, static_cast<cudaStream_t>(stream)),
                             "cudaMemcpy3DAsync (device to host)");
            !e.empty())
            return e;
    }
    return {};
}

}  // namespace gatescope::kernels::cuda
