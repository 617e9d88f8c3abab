// Times the CUDA kernels of kernels/cuda with CUDA events (median of repeated runs after a
// warm-up) and prints one JSON object per measurement on stdout, for bench/gpu/compare_sdpa.py
// to put side by side with PyTorch's attention in the same run.
//   forward: FoX (decay) and Transformer (no decay), bf16, causal, head dims 64/128,
//            B*N = 16k tokens (B = 1 from 16k up), H*d = 2048, as in the FlashAttention papers.
//   tile:    one 256 x 256 attention tile recomputed from the fp32 factors of a 64k-token head.
//   pyramid: levels 5..10 (max and mean) of a 64k-token head's attention map (fp32 factors), and
//            a FoX layer's attention and decay pyramids from bf16 factors beside its forward.
//   gated:   with --gated, GatedFWA, power and Wall forwards (gated_forward_bench.h), N up to
//            --gated-max-n (default 16384: Wall runs on CUDA cores).
// Usage: cuda_attention_bench [--quick] [--max-n N] [--only-d D] [--only-n N] [--forward-only]
//        [--gated] [--gated-max-n N]
//        (--only-d, --only-n and --forward-only narrow the run, e.g. for ncu)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/gpu/bench_support.h"
#include "bench/gpu/forward_inputs.h"
#include "bench/gpu/gated_forward_bench.h"
#include "kernels/cuda/attention_cuda.h"

namespace gc = gatescope::kernels::cuda;
namespace gk = gatescope::kernels;

namespace {

using gatescope::benchgpu::check;
using gatescope::benchgpu::fillBf16;
using gatescope::benchgpu::logDecayCumsum;
using gatescope::benchgpu::medianMs;

// Device buffers of pyramid levels [finest, coarsest] for `heads` heads (max and mean pools,
// heads x S^2 floats per level), freed with the object.
struct LevelBuffers {
    std::vector<float*> maxs, means;
    LevelBuffers(int64_t n, int heads, int finest, int coarsest) {
        for (int l = finest; l <= coarsest; ++l) {
            const int64_t s = gc::pyramidSide(n, l);
            for (auto* pool : {&maxs, &means}) {
                float* p = nullptr;
                check(cudaMalloc(&p, size_t(heads) * s * s * 4), "pyramid level");
                pool->push_back(p);
            }
        }
    }
    ~LevelBuffers() {
        for (auto* pool : {&maxs, &means})
            for (float* p : *pool)
                cudaFree(p);
    }
    LevelBuffers(const LevelBuffers&) = delete;
    LevelBuffers& operator=(const LevelBuffers&) = delete;
};

// The trace's per-layer pyramid work beside the layer's forward, one FoX layer of the 760M-size
// model (24 heads of 64, bf16 factors, N tokens): the forward (out + lse), the attention map's
// pyramid and the decay map's, at the trace's default levels (finest side <= 1024, coarsest
// side <= 256). Prints one JSON line with the three medians.
void benchLayerPyramids(int64_t n, std::mt19937& rng, bool quick) {
    const int heads = 24, d = 64;
    const size_t elems = size_t(heads) * n * d;
    void *q, *k, *v, *out;
    float *lse, *c;
    check(cudaMalloc(&q, elems * 2), "q");
    check(cudaMalloc(&k, elems * 2), "k");
    check(cudaMalloc(&v, elems * 2), "v");
    check(cudaMalloc(&out, elems * 2), "out");
    check(cudaMalloc(&lse, size_t(heads) * n * 4), "lse");
    check(cudaMalloc(&c, size_t(heads) * n * 4), "c");
    fillBf16(q, elems, 1.0f, rng);
    fillBf16(k, elems, 1.0f, rng);
    fillBf16(v, elems, 1.0f, rng);
    const std::vector<float> hc = logDecayCumsum(heads, n, rng);
    check(cudaMemcpy(c, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice), "c copy");
    gc::AdditiveDecayBatch b;
    b.heads = heads;
    b.n = n;
    b.dk = b.dv = d;
    b.dtype = gc::DType::BF16;
    b.q = q;
    b.k = k;
    b.v = v;
    b.logDecayCumsum = c;
    b.scale = 1.0f / std::sqrt(float(d));
    gc::ForwardOutputs o;
    o.out = out;
    o.lse = lse;
    const int reps = quick ? 3 : 10;
    const double forwardMs = medianMs([&] { check(gc::attentionForward(b, o, nullptr)); }, 2, reps);

    int finest = 0;
    while (gc::pyramidSide(n, finest) > 1024)
        ++finest;
    int coarsest = finest;
    while (gc::pyramidSide(n, coarsest) > 256)
        ++coarsest;
    const LevelBuffers levels(n, heads, finest, coarsest);
    gc::DeviceHeadFactors f;
    f.n = n;
    f.dk = d;
    f.dtype = gc::DType::BF16;
    f.q = q;
    f.k = k;
    f.logDecayCumsum = c;
    f.lse = lse;
    f.scale = b.scale;
    gc::PyramidHeads batch;
    batch.heads = heads;
    double ms[2];
    for (gk::MapKind kind : {gk::MapKind::Attention, gk::MapKind::Decay}) {
        ms[kind == gk::MapKind::Decay] = medianMs(
            [&] {
                check(gc::buildPyramids(f, batch, kind, finest, coarsest, levels.maxs.data(),
                                        levels.means.data(), nullptr));
            },
            2, reps);
    }
    std::printf(
        "{\"kernel\": \"layer_pyramids\", \"n\": %lld, \"heads\": %d, \"d\": %d, "
        "\"levels\": \"%d-%d\", \"forward_ms\": %.3f, \"attention_pyramid_ms\": %.3f, "
        "\"decay_pyramid_ms\": %.3f, \"pyramids_over_forward\": %.3f}\n",
        (long long)n, heads, d, finest, coarsest, forwardMs, ms[0], ms[1],
        (ms[0] + ms[1]) / forwardMs);
    std::fflush(stdout);
    for (void* p : {q, k, v, out})
        cudaFree(p);
    cudaFree(lse);
    cudaFree(c);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int64_t maxN = 65536;
    int onlyD = 0;
    int64_t onlyN = 0;
    bool forwardOnly = false, gated = false;
    int64_t gatedMaxN = 16384;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        if (!std::strcmp(argv[i], "--max-n") && i + 1 < argc) maxN = std::atoll(argv[++i]);
        if (!std::strcmp(argv[i], "--only-d") && i + 1 < argc) onlyD = std::atoi(argv[++i]);
        if (!std::strcmp(argv[i], "--only-n") && i + 1 < argc) onlyN = std::atoll(argv[++i]);
        if (!std::strcmp(argv[i], "--forward-only")) forwardOnly = true;
        if (!std::strcmp(argv[i], "--gated")) gated = true;
        if (!std::strcmp(argv[i], "--gated-max-n") && i + 1 < argc)
            gatedMaxN = std::atoll(argv[++i]);
    }
    if (gc::deviceCount() == 0) {
        std::fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    std::printf("{\"device\": \"%s\"}\n", gc::deviceDescription().c_str());
    std::mt19937 rng(42);
    const int reps = quick ? 5 : 20;

    {
        // One set of random inputs, sized for the largest shape (B*N*H*d = max(16k, N) * 2048),
        // shared by every shape: each reads its leading part.
        const gatescope::benchgpu::ForwardInputs in(std::max<int64_t>(16384, maxN), rng);
        for (int d : {64, 128}) {
            if (onlyD && d != onlyD) continue;
            for (int64_t n = 1024; n <= maxN; n *= 2) {
                if (onlyN && n != onlyN) continue;
                const int heads = 2048 / d;
                const int batch = static_cast<int>(std::max<int64_t>(1, 16384 / n));
                const int bh = batch * heads;
                for (const bool decay : {false, true}) {
                    gc::AdditiveDecayBatch b;
                    in.shape(b, bh, n, d);
                    b.logDecayCumsum = decay ? in.c : nullptr;
                    const gc::ForwardOutputs o = in.outputs();
                    const double ms =
                        medianMs([&] { check(gc::attentionForward(b, o, nullptr)); }, 3, reps);
                    const double flops = 4.0 * bh * double(n) * n * d / 2.0;  // causal
                    std::printf(
                        "{\"kernel\": \"gatescope_%s\", \"d\": %d, \"n\": %lld, \"batch\": %d, "
                        "\"heads\": %d, \"ms\": %.4f, \"tflops\": %.1f}\n",
                        decay ? "fox" : "transformer", d, (long long)n, batch, heads, ms,
                        flops / ms / 1e9);
                    std::fflush(stdout);
                }
            }
        }
    }

    if (gated) gatescope::benchgpu::benchGatedForwards(std::min(maxN, gatedMaxN), reps, rng);

    if (!forwardOnly) {
        for (int64_t n : {int64_t{16384}, int64_t{65536}})
            if (n <= maxN) benchLayerPyramids(n, rng, quick);
    }

    // Tile recompute and pyramid from one 64k-token head's fp32 factors (lse from the forward).
    if (!forwardOnly) {
        const int64_t n = std::min<int64_t>(maxN, 65536);
        const int d = 128;
        std::normal_distribution<float> dist(0.f, 1.f);
        std::vector<float> hq(size_t(n) * d), hk(size_t(n) * d);
        for (auto& x : hq)
            x = dist(rng);
        for (auto& x : hk)
            x = dist(rng);
        const std::vector<float> hc = logDecayCumsum(1, n, rng);
        float *q, *k, *c, *lse, *tile;
        check(cudaMalloc(&q, hq.size() * 4), "q");
        check(cudaMalloc(&k, hk.size() * 4), "k");
        check(cudaMalloc(&c, n * 4), "c");
        check(cudaMalloc(&lse, n * 4), "lse");
        check(cudaMalloc(&tile, 256 * 256 * 4), "tile");
        cudaMemcpy(q, hq.data(), hq.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(k, hk.data(), hk.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(c, hc.data(), n * 4, cudaMemcpyHostToDevice);
        // lse for the factors: the fallback forward runs in fp32 on exactly these q, k, c.
        gc::AdditiveDecayBatch b;
        b.heads = 1;
        b.n = n;
        b.dk = d;
        b.dv = d;
        b.dtype = gc::DType::F32;
        b.q = q;
        b.k = k;
        b.v = k;
        b.logDecayCumsum = c;
        b.scale = 1.0f / std::sqrt(float(d));
        float* out32;
        check(cudaMalloc(&out32, hq.size() * 4), "out32");
        gc::ForwardOutputs o;
        o.out = out32;
        o.lse = lse;
        check(gc::attentionForward(b, o, nullptr));
        check(cudaDeviceSynchronize(), "lse forward");

        gc::DeviceHeadFactors f;
        f.n = n;
        f.dk = d;
        f.dtype = gc::DType::F32;
        f.q = q;
        f.k = k;
        f.logDecayCumsum = c;
        f.lse = lse;
        f.scale = b.scale;
        std::mt19937 pick(7);
        std::uniform_int_distribution<int64_t> pos(0, n - 256);
        int64_t row0 = n - 256, col0 = n / 2;
        const double tileMs = medianMs(
            [&] {
                check(gc::computeTile(f, gk::MapKind::Attention, row0, 256, col0, 256, tile,
                                      nullptr));
            },
            3, 50);
        std::printf("{\"kernel\": \"tile_recompute_256\", \"n\": %lld, \"d\": %d, \"ms\": %.4f}\n",
                    (long long)n, d, tileMs);
        // Latency including the copy of the tile to the host (what a viewer waits for).
        std::vector<float> host(256 * 256);
        const double tileHostMs = medianMs(
            [&] {
                row0 = pos(pick);
                col0 = std::min(row0, pos(pick));
                check(gc::computeTile(f, gk::MapKind::Attention, row0, 256, col0, 256, tile,
                                      nullptr));
                check(cudaMemcpy(host.data(), tile, host.size() * 4, cudaMemcpyDeviceToHost),
                      "tile copy");
            },
            3, 50);
        std::printf(
            "{\"kernel\": \"tile_recompute_256_to_host\", \"n\": %lld, \"d\": %d, "
            "\"ms\": %.4f}\n",
            (long long)n, d, tileHostMs);

        const int finest = 5, coarsest = 10;
        const LevelBuffers levels(n, 1, finest, coarsest);
        const double pyrMs = medianMs(
            [&] {
                check(gc::buildPyramid(f, gk::MapKind::Attention, finest, coarsest,
                                       levels.maxs.data(), levels.means.data(), nullptr));
            },
            1, quick ? 3 : 5);
        const double cells = double(n) * n / 2;
        std::printf(
            "{\"kernel\": \"pyramid_attention_l5_l10\", \"n\": %lld, \"d\": %d, "
            "\"ms\": %.2f, \"gcells_per_s\": %.1f}\n",
            (long long)n, d, pyrMs, cells / pyrMs / 1e6);

        cudaFree(q);
        cudaFree(k);
        cudaFree(c);
        cudaFree(lse);
        cudaFree(tile);
        cudaFree(out32);
    }
    return 0;
}
