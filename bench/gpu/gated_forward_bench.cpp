// The forwards of the other gated families, for bench/gpu/compare_sdpa.py --gated (issue 26:
// each against its strongest runnable anchor): GatedFWA (FoX decay inside a sliding window of
// kGatedFwaWindow keys, the papers' 512), gated power attention (degree 2) and Wall Attention
// (every channel gated). bf16 inputs at the shapes of cuda_attention_bench's forward table
// (B*N = 16k tokens, H*d = 2048). FLOPs count the two matrix products over the pairs each kernel
// visits: causal pairs, or the window's for GatedFWA (4 d per pair), the same convention as the
// anchors' rows in compare_sdpa.py.
#include "bench/gpu/gated_forward_bench.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/gpu/bench_support.h"
#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/wall_power_cuda.h"

namespace gatescope::benchgpu {
namespace {

namespace gc = kernels::cuda;

constexpr int64_t kGatedFwaWindow = 512;
constexpr int kPowerDegree = 2;

/// Query-key pairs a causal row set of n rows visits with a window of w keys (w <= 0: all).
double visitedPairs(int64_t n, int64_t w) {
    if (w <= 0 || w >= n) return double(n) * double(n + 1) / 2.0;
    return double(w) * double(w + 1) / 2.0 + double(n - w) * double(w);
}

void printRow(const char* kernel, int d, int64_t n, int batch, int heads, int64_t window, double ms,
              double flops) {
    std::printf(
        "{\"kernel\": \"%s\", \"d\": %d, \"n\": %lld, \"batch\": %d, \"heads\": %d, "
        "\"window\": %lld, \"ms\": %.4f, \"tflops\": %.2f}\n",
        kernel, d, (long long)n, batch, heads, (long long)window, ms, flops / ms / 1e9);
    std::fflush(stdout);
}

}  // namespace

void benchGatedForwards(int64_t maxN, int reps, std::mt19937& rng) {
    const int64_t tokens = std::max<int64_t>(16384, maxN);
    const size_t elems = size_t(tokens) * 2048;
    void *q, *k, *v, *out;
    float *lse, *c, *p;
    check(cudaMalloc(&q, elems * 2), "q");
    check(cudaMalloc(&k, elems * 2), "k");
    check(cudaMalloc(&v, elems * 2), "v");
    check(cudaMalloc(&out, elems * 2), "out");
    check(cudaMalloc(&lse, size_t(tokens) * 32 * 4), "lse");
    check(cudaMalloc(&c, size_t(tokens) * 32 * 4), "c");
    check(cudaMalloc(&p, elems * 4), "wall P");
    // q, k, v random normal; per head a cumulative log forget gate (logsigmoid(1.5 z + 2), as
    // compare_sdpa.py draws them), [32][tokens], read with each shape's head stride n.
    std::vector<float> hc(size_t(tokens) * 32);
    {
        std::normal_distribution<float> normal(0.f, 1.f);
        std::vector<__nv_bfloat16> host(elems);
        for (void* dst : {q, k, v}) {
            for (auto& x : host)
                x = __float2bfloat16_rn(normal(rng));
            check(cudaMemcpy(dst, host.data(), elems * 2, cudaMemcpyHostToDevice), "copy");
        }
        for (size_t h = 0; h < 32; ++h) {
            float acc = 0.f;
            for (int64_t i = 0; i < tokens; ++i) {
                acc += -std::log1p(std::exp(-(1.5f * normal(rng) + 2.f)));
                hc[h * tokens + i] = acc;
            }
        }
        check(cudaMemcpy(c, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice), "c copy");
    }
    // Wall's P of a shape, [heads][n][d]: channel e of head h a scaled copy of a head's cumulative
    // gate (0.5 to 1.5 times; non-increasing in t, as cumulative log gates are).
    std::vector<float> hp;
    auto fillWallP = [&](int heads, int64_t n, int d) {
        hp.resize(size_t(heads) * n * d);
        for (int h = 0; h < heads; ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int e = 0; e < d; ++e)
                    hp[(size_t(h) * n + t) * d + e] =
                        hc[size_t(h % 32) * tokens + t] * (0.5f + float(e % 17) / 16.f);
        check(cudaMemcpy(p, hp.data(), hp.size() * 4, cudaMemcpyHostToDevice), "P copy");
    };
    gc::ForwardOutputs o;
    o.out = out;
    o.lse = lse;
    for (int d : {64, 128}) {
        for (int64_t n = 1024; n <= maxN; n *= 2) {
            const int heads = 2048 / d;
            const int batch = static_cast<int>(std::max<int64_t>(1, 16384 / n));
            const int bh = batch * heads;
            const float scale = 1.0f / std::sqrt(float(d));
            {
                gc::AdditiveDecayBatch b;
                b.heads = bh;
                b.n = n;
                b.dk = b.dv = d;
                b.dtype = gc::DType::BF16;
                b.q = q;
                b.k = k;
                b.v = v;
                b.logDecayCumsum = c;
                b.scale = scale;
                b.window = kGatedFwaWindow;
                const double ms =
                    medianMs([&] { check(gc::attentionForward(b, o, nullptr)); }, 3, reps);
                printRow("gatescope_gatedfwa", d, n, batch, heads, kGatedFwaWindow, ms,
                         4.0 * d * bh * visitedPairs(n, kGatedFwaWindow));
            }
            const double causalFlops = 4.0 * d * bh * visitedPairs(n, 0);
            {
                gc::PowerBatch b;
                b.heads = bh;
                b.n = n;
                b.dk = b.dv = d;
                b.dtype = gc::DType::BF16;
                b.q = q;
                b.k = k;
                b.v = v;
                b.scale = scale;
                b.logDecayCumsum = c;
                b.degree = kPowerDegree;
                gc::GatedForwardOptions options;
                options.roundProbsToBf16 = true;
                const double ms =
                    medianMs([&] { check(gc::powerForward(b, o, nullptr, options)); }, 1, reps);
                printRow("gatescope_power", d, n, batch, heads, 0, ms, causalFlops);
            }
            {
                gc::WallBatch b;
                b.heads = bh;
                b.n = n;
                b.dk = b.dv = d;
                b.dtype = gc::DType::BF16;
                b.q = q;
                b.k = k;
                b.v = v;
                b.scale = scale;
                b.gatedChannels = d;
                fillWallP(bh, n, d);
                b.logDecayCumsum = p;
                gc::GatedForwardOptions options;
                options.roundProbsToBf16 = true;
                const double ms =
                    medianMs([&] { check(gc::wallForward(b, o, nullptr, options)); }, 1, reps);
                printRow("gatescope_wall", d, n, batch, heads, 0, ms, causalFlops);
            }
        }
    }
    for (void* ptr : {q, k, v, out})
        cudaFree(ptr);
    for (float* ptr : {lse, c, p})
        cudaFree(ptr);
}

}  // namespace gatescope::benchgpu
