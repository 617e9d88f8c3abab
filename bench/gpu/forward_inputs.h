// Inputs of the GPU forward tables (cuda_attention_bench.cpp, gated_forward_bench.cpp): random
// bf16 q, k, v and cumulative log forget gates on the device, shared by every shape of a table.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bench/gpu/bench_support.h"
#include "kernels/cuda/attention_cuda.h"

namespace gatescope::benchgpu {

/// Fills a device buffer with random normal bf16 values (never all zeros), made on the host.
inline void fillBf16(void* dst, size_t count, float sigma, std::mt19937& rng) {
    std::normal_distribution<float> dist(0.f, sigma);
    std::vector<__nv_bfloat16> host(count);
    for (auto& x : host)
        x = __float2bfloat16_rn(dist(rng));
    check(cudaMemcpy(dst, host.data(), count * 2, cudaMemcpyHostToDevice), "copy");
}

/// `rows` cumulative log forget gates of n steps, [rows][n]: sums of logsigmoid(1.5 z + 2).
inline std::vector<float> logDecayCumsum(size_t rows, int64_t n, std::mt19937& rng) {
    std::normal_distribution<float> dist(2.f, 1.5f);
    std::vector<float> c(rows * n);
    for (size_t r = 0; r < rows; ++r) {
        float acc = 0.f;
        for (int64_t i = 0; i < n; ++i) {
            acc += -std::log1p(std::exp(-dist(rng)));
            c[r * n + i] = acc;
        }
    }
    return c;
}

/// The forward tables' device buffers, sized for `tokens` x 2048 (B*N*H*d of the largest shape):
/// q, k, v and out in bf16, lse and c ([32][tokens], also kept on the host as hostC) in fp32.
/// Each shape reads their leading part (c with head stride n). Freed with the object.
struct ForwardInputs {
    void *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr;
    float *lse = nullptr, *c = nullptr;
    std::vector<float> hostC;

    ForwardInputs(int64_t tokens, std::mt19937& rng) {
        const size_t elems = size_t(tokens) * 2048;
        for (void** p : {&q, &k, &v, &out})
            check(cudaMalloc(p, elems * 2), "forward input");
        check(cudaMalloc(&lse, size_t(tokens) * 32 * 4), "lse");
        check(cudaMalloc(&c, size_t(tokens) * 32 * 4), "c");
        for (void* p : {q, k, v})
            fillBf16(p, elems, 1.0f, rng);
        hostC = logDecayCumsum(32, tokens, rng);
        check(cudaMemcpy(c, hostC.data(), hostC.size() * 4, cudaMemcpyHostToDevice), "c copy");
    }
    ~ForwardInputs() {
        for (void* p : {q, k, v, out})
            cudaFree(p);
        cudaFree(lse);
        cudaFree(c);
    }
    ForwardInputs(const ForwardInputs&) = delete;
    ForwardInputs& operator=(const ForwardInputs&) = delete;

    /// Sets the fields every forward batch type shares (AdditiveDecayBatch, and the GatedHeads of
    /// Wall and power): `heads` heads of n tokens and head dim d over these buffers, bf16, scale
    /// 1/sqrt(d).
    template <class Batch>
    void shape(Batch& b, int heads, int64_t n, int d) const {
        b.heads = heads;
        b.n = n;
        b.dk = b.dv = d;
        b.dtype = kernels::cuda::DType::BF16;
        b.q = q;
        b.k = k;
        b.v = v;
        b.scale = 1.0f / std::sqrt(float(d));
    }
    kernels::cuda::ForwardOutputs outputs() const {
        kernels::cuda::ForwardOutputs o;
        o.out = out;
        o.lse = lse;
        return o;
    }
};

}  // namespace gatescope::benchgpu
