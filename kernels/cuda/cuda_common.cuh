// Private to kernels/cuda: small device helpers shared by the .cu files.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/attention_cuda.h"

namespace gatescope::kernels::cuda::detail {

inline std::string cudaMessage(cudaError_t error, const char* what) {
    return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) +
           ")";
}

/// Empty on success, else the launch error (checked right after a launch).
inline std::string lastLaunchError(const char* what) {
    const cudaError_t error = cudaGetLastError();
    return error == cudaSuccess ? std::string() : cudaMessage(error, what);
}

/// Blocks of `threads` threads that cover `count` items.
inline unsigned blocksFor(int64_t count, int threads) {
    return static_cast<unsigned>((count + threads - 1) / threads);
}

inline cudaStream_t asStream(void* stream) {
    return static_cast<cudaStream_t>(stream);
}

template <class T>
__device__ __forceinline__ float toFloat(T x);
template <>
__device__ __forceinline__ float toFloat<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ float toFloat<__half>(__half x) {
    return __half2float(x);
}
template <>
__device__ __forceinline__ float toFloat<__nv_bfloat16>(__nv_bfloat16 x) {
    return __bfloat162float(x);
}

template <class T>
__device__ __forceinline__ T fromFloat(float x);
template <>
__device__ __forceinline__ float fromFloat<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ __half fromFloat<__half>(float x) {
    return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}

/// Tokens covered by pyramid cell (r, c) of level `level` (cells of 2^level tokens; the last
/// row and column of cells may be cut at n): the divisor of its mean.
__device__ __forceinline__ float cellArea(int64_t r, int64_t c, int level, int64_t n) {
    const int64_t rows = min((r + 1) << level, n) - (r << level);
    const int64_t cols = min((c + 1) << level, n) - (c << level);
    return static_cast<float>(rows) * static_cast<float>(cols);
}

/// Dispatches `f` with a value of the C++ element type of `dtype`.
template <class F>
decltype(auto) withElementType(DType dtype, F&& f) {
    switch (dtype) {
        case DType::F16:
            return f(__half{});
        case DType::BF16:
            return f(__nv_bfloat16{});
        case DType::F32:
        default:
            return f(float{});
    }
}

}  // namespace gatescope::kernels::cuda::detail
