// CPU attention kernels: blockwise forward throughput, tile recompute latency, pyramid build
// time, and two GEMM references for scale: a plain blocked sgemm of the same FLOP count as the
// n = 4096, d = 64 forward (what the compiler alone gives), and the kernels' GEMM primitive on
// the forward's block shapes (the ceiling of its matmuls). Results and commands:
// docs/benchmarks.md, section "kernels: CPU attention".
//
// Every benchmark measures process CPU time (all threads) besides the wall clock: on a shared
// machine the wall clock depends on the neighbours, CPU time much less. Counters: GFLOPs_wall
// (work / wall time) and GFLOPs_cpu (work / CPU seconds of all threads).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/tile_ops.h"
#include "kernels/cpu/tile_recompute.h"

namespace {

using namespace gatescope::kernels;

// One FoX-like head: q, k, v ~ N(0, 1), log f = logsigmoid(N(2, 1)), c = cumsum(log f).
struct BenchHead {
    BenchHead(int64_t n, int d) : q(n * d), k(n * d), v(n * d), c(n), out(n * d), lse(n) {
        std::mt19937 rng(42);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (auto* x : {&q, &k, &v})
            for (float& y : *x)
                y = normal(rng);
        float running = 0.0f;
        for (float& y : c)
            y = running += -std::log1p(std::exp(-(2.0f + normal(rng))));
        head.n = n;
        head.dk = head.dv = d;
        head.q = q.data();
        head.k = k.data();
        head.v = v.data();
        head.logDecayCumsum = c.data();
        head.scale = 1.0f / std::sqrt(static_cast<float>(d));
    }
    std::vector<float> q, k, v, c, out, lse;
    AdditiveDecayHead head;
};

// FLOPs of causal attention: QK^T and PV over half the n x n matrix.
double causalFlops(int64_t n, int d) {
    return 4.0 * n * n / 2.0 * d;
}

class WallTimer {
public:
    void start() { m_start = std::chrono::steady_clock::now(); }
    void stop() { m_total += std::chrono::steady_clock::now() - m_start; }
    void report(benchmark::State& state, double flopsPerIteration) const {
        const double seconds = std::chrono::duration<double>(m_total).count();
        state.counters["GFLOPs_wall"] = flopsPerIteration * state.iterations() / seconds / 1e9;
        state.counters["GFLOPs_cpu"] = benchmark::Counter(
            flopsPerIteration / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    }

private:
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::duration m_total{};
};

void BM_AttentionForward(benchmark::State& state) {
    const int64_t n = state.range(0);
    const int d = static_cast<int>(state.range(1));
    const int threads = static_cast<int>(state.range(2));
    BenchHead h(n, d);
    ForwardOptions options;
    options.roundProbsToBf16 = state.range(3) != 0;
    float* outs[] = {h.out.data()};
    float* lses[] = {h.lse.data()};
    WallTimer wall;
    for (auto _ : state) {
        wall.start();
        attentionForwardHeads(&h.head, 1, outs, lses, options, threads);
        benchmark::DoNotOptimize(h.out.data());
        wall.stop();
    }
    wall.report(state, causalFlops(n, d));
}
BENCHMARK(BM_AttentionForward)
    ->ArgNames({"n", "d", "threads", "bf16"})
    ->ArgsProduct({{1024, 4096, 8192}, {64, 128}, {1, 2}, {0}})
    ->Args({4096, 64, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// The plain loop a compiler sees without help: i-k-j order in 64-wide blocks, C += A B.
void naiveBlockedSgemm(int64_t m, const float* a, const float* b, float* c) {
    constexpr int64_t kBlock = 64;
    for (int64_t i0 = 0; i0 < m; i0 += kBlock)
        for (int64_t p0 = 0; p0 < m; p0 += kBlock)
            for (int64_t j0 = 0; j0 < m; j0 += kBlock)
                for (int64_t i = i0; i < i0 + kBlock; ++i)
                    for (int64_t p = p0; p < p0 + kBlock; ++p) {
                        const float x = a[i * m + p];
                        for (int64_t j = j0; j < j0 + kBlock; ++j)
                            c[i * m + j] += x * b[p * m + j];
                    }
}

// m = 1024: 2 m^3 = 2.1 GFLOP, the FLOP count of causal attention at n = 4096, d = 64. Built
// with the project's flags and no -march, so the compiler may use SSE2 only: the baseline a
// plain loop gets.
void BM_NaiveSgemm(benchmark::State& state) {
    const int64_t m = state.range(0);
    AlignedFloats a(m * m), b(m * m), c(m * m, 0.0f);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& x : a)
        x = normal(rng);
    for (float& x : b)
        x = normal(rng);
    WallTimer wall;
    for (auto _ : state) {
        wall.start();
        naiveBlockedSgemm(m, a.data(), b.data(), c.data());
        benchmark::DoNotOptimize(c.data());
        wall.stop();
    }
    wall.report(state, 2.0 * m * m * m);
}
BENCHMARK(BM_NaiveSgemm)
    ->ArgName("m")
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// The forward's two matmuls per block pair, S = Q K^T (block x block x dk) and O += P V
// (block x dv x block), through the kernels' GEMM primitive on cache-resident blocks: the
// ceiling the forward can approach (it adds packing and the online softmax).
void BM_TileGemm(benchmark::State& state) {
    const int64_t block = 128, d = state.range(0);
    AlignedFloats q(block * d), kT(d * block), s(block * block), v(block * d), o(block * d);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto* x : {&q, &kT, &v})
        for (float& y : *x)
            y = normal(rng);
    WallTimer wall;
    for (auto _ : state) {
        wall.start();
        std::fill(s.begin(), s.end(), 0.0f);
        gemmAccumulate(block, block, d, q.data(), d, kT.data(), block, s.data(), block);
        gemmAccumulate(block, d, block, s.data(), block, v.data(), d, o.data(), d);
        benchmark::DoNotOptimize(o.data());
        wall.stop();
    }
    wall.report(state, 4.0 * block * block * d);
}
BENCHMARK(BM_TileGemm)->ArgName("d")->Arg(64)->Arg(128)->MeasureProcessCPUTime();

// One 256 x 256 attention tile deep in a long head: what the viewer pays per tile request.
void BM_ComputeTile256(benchmark::State& state) {
    const int d = static_cast<int>(state.range(0));
    BenchHead h(8192, d);
    attentionForward(h.head, h.out.data(), h.lse.data());
    h.head.lse = h.lse.data();
    std::vector<float> tile(256 * 256);
    for (auto _ : state) {
        computeTile(h.head, MapKind::Attention, 6000, 256, 3000, 256, tile.data());
        benchmark::DoNotOptimize(tile.data());
    }
}
BENCHMARK(BM_ComputeTile256)
    ->ArgName("d")
    ->Arg(64)
    ->Arg(128)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

// Attention pyramid of an n = 8192 head, levels 3 (1024 x 1024 cells) to 10 (8 x 8).
void BM_PyramidBuild(benchmark::State& state) {
    const int64_t n = state.range(0);
    const int threads = static_cast<int>(state.range(1));
    BenchHead h(n, 64);
    attentionForward(h.head, h.out.data(), h.lse.data());
    h.head.lse = h.lse.data();
    const AdditiveDecayTileSource source(h.head);
    PyramidRequest request;
    request.finestLevel = 3;
    request.coarsestLevel = 10;
    request.threads = threads;
    double checksum = 0.0;
    PyramidCallbacks callbacks;
    callbacks.onTile = [&](int, Pool, int64_t, int64_t, const float* tile) { checksum += tile[0]; };
    for (auto _ : state) {
        if (!buildPyramid(source, request, callbacks)) state.SkipWithError("pyramid failed");
        benchmark::DoNotOptimize(checksum);
    }
}
BENCHMARK(BM_PyramidBuild)
    ->ArgNames({"n", "threads"})
    ->Args({8192, 1})
    ->Args({8192, 2})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
