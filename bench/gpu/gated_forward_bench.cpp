// The forwards of the other gated families, for bench/gpu/compare_sdpa.py --gated (issue 26:
// each against its strongest runnable anchor): GatedFWA (FoX decay inside a sliding window of
// kGatedFwaWindow keys, the papers' 512), gated power attention (degree 2) and Wall Attention
// (every channel gated; on tensor cores where the device runs them, and on CUDA cores beside it).
// bf16 inputs at the shapes of cuda_attention_bench's forward table
// (B*N = 16k tokens, H*d = 2048). FLOPs count the two matrix products over the pairs each kernel
// visits: causal pairs, or the window's for GatedFWA (4 d per pair), the same convention as the
// anchors' rows in compare_sdpa.py.
#include "bench/gpu/gated_forward_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/gpu/bench_support.h"
#include "bench/gpu/forward_inputs.h"
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
    const ForwardInputs in(tokens, rng);
    float* p = nullptr;
    void* workspace = nullptr;
    check(cudaMalloc(&p, size_t(tokens) * 2048 * 4), "wall P");
    check(cudaMalloc(&workspace, size_t(tokens) * 2048 * 2), "wall workspace");
    // Wall's P of a shape, [heads][n][d]: channel e of head h a scaled copy of a head's cumulative
    // gate (0.5 to 1.5 times; non-increasing in t, as cumulative log gates are).
    std::vector<float> hp;
    auto fillWallP = [&](int heads, int64_t n, int d) {
        hp.resize(size_t(heads) * n * d);
        for (int h = 0; h < heads; ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int e = 0; e < d; ++e)
                    hp[(size_t(h) * n + t) * d + e] =
                        in.hostC[size_t(h % 32) * tokens + t] * (0.5f + float(e % 17) / 16.f);
        check(cudaMemcpy(p, hp.data(), hp.size() * 4, cudaMemcpyHostToDevice), "P copy");
    };
    const gc::ForwardOutputs o = in.outputs();
    for (int d : {64, 128}) {
        for (int64_t n = 1024; n <= maxN; n *= 2) {
            const int heads = 2048 / d;
            const int batch = static_cast<int>(std::max<int64_t>(1, 16384 / n));
            const int bh = batch * heads;
            {
                gc::AdditiveDecayBatch b;
                in.shape(b, bh, n, d);
                b.logDecayCumsum = in.c;
                b.window = kGatedFwaWindow;
                const double ms =
                    medianMs([&] { check(gc::attentionForward(b, o, nullptr)); }, 3, reps);
                printRow("gatescope_gatedfwa", d, n, batch, heads, kGatedFwaWindow, ms,
                         4.0 * d * bh * visitedPairs(n, kGatedFwaWindow));
            }
            // Both take bf16-rounded probabilities into P V, as the models' bf16 forwards do.
            gc::GatedForwardOptions options;
            options.roundProbsToBf16 = true;
            auto timeCausal = [&](const char* kernel, auto&& forward) {
                const double ms = medianMs([&] { check(forward()); }, 1, reps);
                printRow(kernel, d, n, batch, heads, 0, ms, 4.0 * d * bh * visitedPairs(n, 0));
            };
            gc::PowerBatch power;
            in.shape(power, bh, n, d);
            power.logDecayCumsum = in.c;
            power.degree = kPowerDegree;
            timeCausal("gatescope_power",
                       [&] { return gc::powerForward(power, o, nullptr, options); });
            gc::WallBatch wall;
            in.shape(wall, bh, n, d);
            wall.gatedChannels = d;
            fillWallP(bh, n, d);
            wall.logDecayCumsum = p;
            // The tensor-core kernel where the device runs it, and the CUDA-core one beside it.
            wall.workspace = gc::wallWorkspaceBytes(wall, o, options) ? workspace : nullptr;
            timeCausal(wall.workspace ? "gatescope_wall" : "gatescope_wall_cuda_cores",
                       [&] { return gc::wallForward(wall, o, nullptr, options); });
            if (wall.workspace) {
                wall.workspace = nullptr;
                timeCausal("gatescope_wall_cuda_cores",
                           [&] { return gc::wallForward(wall, o, nullptr, options); });
            }
        }
    }
    cudaFree(p);
    cudaFree(workspace);
}

}  // namespace gatescope::benchgpu
