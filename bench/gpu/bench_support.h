// Shared by the GPU bench programs (cuda_attention_bench.cpp, wgmma/wgmma_test.cu): exit-on-error
// checks and the median of CUDA-event timings.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gatescope::benchgpu {

/// Prints `what` and the CUDA error and exits when `e` is not cudaSuccess.
inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

/// Prints the error string of a kernels::cuda call and exits when it is not empty.
inline void check(const std::string& e) {
    if (!e.empty()) {
        std::fprintf(stderr, "%s\n", e.c_str());
        std::exit(1);
    }
}

/// Median milliseconds of `reps` runs of `f` on the legacy default stream, timed with CUDA events
/// after `warmup` untimed runs.
template <class F>
double medianMs(F&& f, int warmup, int reps) {
    for (int i = 0; i < warmup; ++i)
        f();
    check(cudaDeviceSynchronize(), "warm-up");
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
        cudaEventRecord(start);
        f();
        cudaEventRecord(stop);
        check(cudaEventSynchronize(stop), "timed run");
        float t = 0.f;
        cudaEventElapsedTime(&t, start, stop);
        ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace gatescope::benchgpu
