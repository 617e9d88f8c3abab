// GPU kernels (kernels/cuda) against the CPU path (kernels/cpu) on fresh random inputs, at sizes
// that are not multiples of the tiles, with every output poisoned (NaN) before the run. Skipped
// when no CUDA device is present (CI builds these, the GPU machine runs them:
// scripts/gpu-test.sh).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/tile_recompute.h"
#include "kernels/cuda/attention_cuda.h"
#include "tests/cuda/cuda_test_support.h"

namespace gk = gatescope::kernels;
namespace gc = gatescope::kernels::cuda;

namespace {

using namespace gatescope::cudatest;

// ---------------------------------------------------------------------------------------------
// Forward
// ---------------------------------------------------------------------------------------------

struct ForwardCase {
    const char* name;
    int heads;
    int64_t n;
    int d;
    gc::DType dtype;
    bool decay;
    int64_t window;
    int kvGroup;
    bool forceFallback;
};

std::ostream& operator<<(std::ostream& os, const ForwardCase& c) {
    return os << c.name;
}

class ForwardTest : public CudaTest, public ::testing::WithParamInterface<ForwardCase> {};

TEST_P(ForwardTest, MatchesCpuForward) {
    const ForwardCase& tc = GetParam();
    std::mt19937 rng(0x5eed + static_cast<unsigned>(tc.n * 131 + tc.d * 7 + tc.heads));
    const int kvHeads = tc.heads / tc.kvGroup;
    const int64_t n = tc.n;
    const int d = tc.d;
    std::vector<uint8_t> qRaw, kRaw, vRaw;
    const std::vector<float> q =
        roundTo(tc.dtype, randomNormal(size_t(tc.heads) * n * d, 1.5f, rng), qRaw);
    const std::vector<float> k =
        roundTo(tc.dtype, randomNormal(size_t(kvHeads) * n * d, 1.5f, rng), kRaw);
    const std::vector<float> v =
        roundTo(tc.dtype, randomNormal(size_t(kvHeads) * n * d, 1.0f, rng), vRaw);
    const std::vector<float> c =
        tc.decay ? randomLogDecayCumsum(tc.heads, n, rng) : std::vector<float>{};

    DeviceBuffer dq(qRaw.size()), dk(kRaw.size()), dv(vRaw.size()), dc(c.size() * 4);
    DeviceBuffer dout(size_t(tc.heads) * n * d * elementSize(tc.dtype)),
        dlse(size_t(tc.heads) * n * 4);
    ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dc.ptr && dout.ptr && dlse.ptr);
    CUDA_OK(cudaMemcpy(dq.ptr, qRaw.data(), qRaw.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dk.ptr, kRaw.data(), kRaw.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dv.ptr, vRaw.data(), vRaw.size(), cudaMemcpyHostToDevice));
    if (tc.decay) CUDA_OK(cudaMemcpy(dc.ptr, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
    dout.poison();
    dlse.poison();

    gc::AdditiveDecayBatch batch;
    batch.heads = tc.heads;
    batch.n = n;
    batch.dk = d;
    batch.dv = d;
    batch.kvGroup = tc.kvGroup;
    batch.dtype = tc.dtype;
    batch.q = dq.ptr;
    batch.k = dk.ptr;
    batch.v = dv.ptr;
    batch.logDecayCumsum = tc.decay ? dc.as<float>() : nullptr;
    batch.scale = 1.0f / std::sqrt(float(d));
    batch.window = tc.window;
    gc::ForwardOutputs outputs;
    outputs.out = dout.ptr;
    outputs.lse = dlse.as<float>();
    gc::ForwardConfig config;
    config.forceFallback = tc.forceFallback;
    const gc::ForwardPath path = gc::forwardPath(batch, config);
    ASSERT_EQ(path == gc::ForwardPath::TensorCore,
              !tc.forceFallback && tc.dtype != gc::DType::F32 && (d == 64 || d == 128));
    ASSERT_EQ(gc::attentionForward(batch, outputs, nullptr, config), "");
    CUDA_OK(cudaDeviceSynchronize());

    const std::vector<float> out = dout.floatsOnHost(tc.dtype);
    const std::vector<float> lse = dlse.floatsOnHost(gc::DType::F32);
    ASSERT_FALSE(out.empty() || lse.empty());

    // CPU reference on the same (rounded) inputs; P rounded to bf16 as the tensor-core path does.
    std::vector<float> refOut(out.size()), refLse(lse.size());
    std::vector<gk::AdditiveDecayHead> heads(tc.heads);
    std::vector<float*> outs(tc.heads), lses(tc.heads);
    for (int h = 0; h < tc.heads; ++h) {
        gk::AdditiveDecayHead& head = heads[h];
        const int kv = h / tc.kvGroup;
        head.n = n;
        head.dk = d;
        head.dv = d;
        head.q = q.data() + size_t(h) * n * d;
        head.k = k.data() + size_t(kv) * n * d;
        head.v = v.data() + size_t(kv) * n * d;
        head.logDecayCumsum = tc.decay ? c.data() + size_t(h) * n : nullptr;
        head.scale = batch.scale;
        head.window = tc.window;
        outs[h] = refOut.data() + size_t(h) * n * d;
        lses[h] = refLse.data() + size_t(h) * n;
    }
    gk::ForwardOptions options;
    options.roundProbsToBf16 = tc.dtype == gc::DType::BF16 && path == gc::ForwardPath::TensorCore;
    gk::attentionForwardHeads(heads.data(), tc.heads, outs.data(), lses.data(), options);

    const Errors e = compare(out, refOut, lse, refLse);
    const double tol = tc.dtype == gc::DType::BF16  ? 1e-2
                       : tc.dtype == gc::DType::F16 ? 3e-3
                                                    : 1e-4;
    std::printf("[forward %s] path=%s rel_l2=%.3e max_abs=%.3e (max|ref| %.3f) lse_max_rel=%.3e\n",
                tc.name, path == gc::ForwardPath::TensorCore ? "tensor-core" : "fallback", e.rel,
                e.maxAbs, e.maxRef, e.lseMax);
    EXPECT_EQ(e.nans, 0) << "unwritten or non-finite output elements";
    EXPECT_EQ(e.lseNans, 0) << "unwritten or non-finite lse";
    EXPECT_LT(e.rel, tol);
    EXPECT_LT(e.maxAbs, 8 * tol * std::max(e.maxRef, 1.0));
    EXPECT_LT(e.lseMax, tc.dtype == gc::DType::F32 ? 1e-5 : 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, ForwardTest,
    ::testing::Values(
        ForwardCase{"fox_bf16_d64_N1000", 3, 1000, 64, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"fox_bf16_d128_N1337", 2, 1337, 128, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"fox_bf16_d128_N4099", 2, 4099, 128, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"fox_f16_d64_N4099", 2, 4099, 64, gc::DType::F16, true, 0, 1, false},
        ForwardCase{"fox_f16_d128_N1000", 2, 1000, 128, gc::DType::F16, true, 0, 1, false},
        ForwardCase{"transformer_bf16_d128_N1337", 2, 1337, 128, gc::DType::BF16, false, 0, 1,
                    false},
        ForwardCase{"transformer_bf16_d64_N17", 2, 17, 64, gc::DType::BF16, false, 0, 1, false},
        ForwardCase{"gatedfwa_bf16_d64_N1337_w257", 2, 1337, 64, gc::DType::BF16, true, 257, 1,
                    false},
        ForwardCase{"gatedfwa_bf16_d128_N4099_w1000", 2, 4099, 128, gc::DType::BF16, true, 1000, 1,
                    false},
        ForwardCase{"fox_gqa_bf16_d128_N1000", 4, 1000, 128, gc::DType::BF16, true, 0, 2, false},
        ForwardCase{"fox_bf16_d96_N1337_fallback", 2, 1337, 96, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"fox_f16_d80_N1000_w100_fallback", 2, 1000, 80, gc::DType::F16, true, 100, 1,
                    false},
        ForwardCase{"fox_f32_d64_N1000_fallback", 2, 1000, 64, gc::DType::F32, true, 0, 1, false},
        ForwardCase{"fox_f32_d256_N1337_fallback", 1, 1337, 256, gc::DType::F32, true, 0, 1, false},
        ForwardCase{"fox_bf16_d128_N1000_forced_fallback", 2, 1000, 128, gc::DType::BF16, true, 0,
                    1, true},
        ForwardCase{"gatedfwa_f16_d128_N3001_w333", 2, 3001, 128, gc::DType::F16, true, 333, 1,
                    false},
        ForwardCase{"fox_bf16_d64_N3001", 2, 3001, 64, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"gatedfwa_f16_d64_N4099_w333", 2, 4099, 64, gc::DType::F16, true, 333, 1,
                    false},
        ForwardCase{"fox_gqa_bf16_d128_N2001", 4, 2001, 128, gc::DType::BF16, true, 0, 2, false},
        ForwardCase{"transformer_f16_d64_N2500", 2, 2500, 64, gc::DType::F16, false, 0, 1, false},
        ForwardCase{"gatedfwa_bf16_d64_N2001_w100", 2, 2001, 64, gc::DType::BF16, true, 100, 1,
                    false},
        ForwardCase{"transformer_bf16_d128_N2001", 2, 2001, 128, gc::DType::BF16, false, 0, 1,
                    false},
        ForwardCase{"gatedfwa_bf16_d128_N2500_w100", 3, 2500, 128, gc::DType::BF16, true, 100, 1,
                    false},
        // d = 64 below 4096 keys (64-key tiles, two CTAs an SM on sm_90a): fp16, GQA, and the
        // last length before the ping-pong kernel takes over (bf16, and its first length).
        ForwardCase{"fox_f16_d64_N1337", 2, 1337, 64, gc::DType::F16, true, 0, 1, false},
        ForwardCase{"fox_gqa_bf16_d64_N1000", 4, 1000, 64, gc::DType::BF16, true, 0, 2, false},
        ForwardCase{"transformer_bf16_d64_N2047", 2, 2047, 64, gc::DType::BF16, false, 0, 1, false},
        ForwardCase{"fox_bf16_d64_N4095", 2, 4095, 64, gc::DType::BF16, true, 0, 1, false},
        ForwardCase{"fox_bf16_d64_N4096", 2, 4096, 64, gc::DType::BF16, true, 0, 1, false},
        // d = 64 chooses by the keys a row sees: windows of 100-333 over 4+ windows of tokens
        // take one warpgroup a CTA (above), a window of 300 over 1000 tokens the double buffer,
        // a window of 4200 ping-pongs.
        ForwardCase{"gatedfwa_bf16_d64_N1000_w300", 2, 1000, 64, gc::DType::BF16, true, 300, 1,
                    false},
        ForwardCase{"gatedfwa_bf16_d64_N6001_w4200", 2, 6001, 64, gc::DType::BF16, true, 4200, 1,
                    false}),
    [](const ::testing::TestParamInfo<ForwardCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Tile recompute and pyramids: fp32 factors, lse from the CPU forward
// ---------------------------------------------------------------------------------------------

struct HeadData {
    int64_t n;
    int d;
    std::vector<float> q, k, v, c, lse, out;
    gk::AdditiveDecayHead head;
};

HeadData makeHead(int64_t n, int d, bool decay, int64_t window, unsigned seed) {
    std::mt19937 rng(seed);
    HeadData h;
    h.n = n;
    h.d = d;
    h.q = randomNormal(size_t(n) * d, 1.5f, rng);
    h.k = randomNormal(size_t(n) * d, 1.5f, rng);
    h.v = randomNormal(size_t(n) * d, 1.0f, rng);
    if (decay) h.c = randomLogDecayCumsum(1, n, rng);
    h.lse.resize(n);
    h.out.resize(size_t(n) * d);
    h.head.n = n;
    h.head.dk = d;
    h.head.dv = d;
    h.head.q = h.q.data();
    h.head.k = h.k.data();
    h.head.v = h.v.data();
    h.head.logDecayCumsum = decay ? h.c.data() : nullptr;
    h.head.scale = 1.0f / std::sqrt(float(d));
    h.head.window = window;
    gk::attentionForward(h.head, h.out.data(), h.lse.data());
    h.head.lse = h.lse.data();
    return h;
}

/// Device copies of a head's factors (fp32).
struct DeviceHead {
    DeviceBuffer q, k, c, lse;
    gc::DeviceHeadFactors factors;
    explicit DeviceHead(const HeadData& h)
        : q(h.q.size() * 4),
          k(h.k.size() * 4),
          c(std::max<size_t>(h.c.size(), 1) * 4),
          lse(h.lse.size() * 4) {
        cudaMemcpy(q.ptr, h.q.data(), q.bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(k.ptr, h.k.data(), k.bytes, cudaMemcpyHostToDevice);
        if (!h.c.empty()) cudaMemcpy(c.ptr, h.c.data(), c.bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(lse.ptr, h.lse.data(), lse.bytes, cudaMemcpyHostToDevice);
        factors.n = h.n;
        factors.dk = h.d;
        factors.dtype = gc::DType::F32;
        factors.q = q.ptr;
        factors.k = k.ptr;
        factors.logDecayCumsum = h.c.empty() ? nullptr : c.as<float>();
        factors.lse = lse.as<float>();
        factors.scale = h.head.scale;
        factors.window = h.head.window;
    }
};

TEST_F(CudaTest, TilesMatchCpuRecompute) {
    struct Setup {
        int64_t n;
        int d;
        bool decay;
        int64_t window;
    };
    for (const Setup& s : {Setup{1337, 64, true, 0}, Setup{4099, 128, true, 0},
                           Setup{2001, 96, false, 0}, Setup{3001, 64, true, 300}}) {
        const HeadData h = makeHead(s.n, s.d, s.decay, s.window, 77 + unsigned(s.n));
        DeviceHead dh(h);
        std::mt19937 rng(unsigned(s.n) * 3 + 1);
        std::uniform_int_distribution<int64_t> pos(-100, s.n + 50);
        std::uniform_int_distribution<int64_t> len(1, 300);
        std::vector<std::array<int64_t, 4>> rects = {
            {0, 256, 0, 256}, {s.n - 256, 256, s.n - 256, 256}, {s.n - 1, 1, 0, s.n}};
        for (int r = 0; r < 6; ++r)
            rects.push_back({pos(rng), len(rng), pos(rng), len(rng)});
        for (const auto& rect : rects) {
            for (gk::MapKind kind :
                 {gk::MapKind::Attention, gk::MapKind::Decay, gk::MapKind::Logit}) {
                const int64_t rows = rect[1], cols = rect[3];
                std::vector<float> cpu(rows * cols), gpu(rows * cols);
                gk::computeTile(h.head, kind, rect[0], rows, rect[2], cols, cpu.data());
                DeviceBuffer out(gpu.size() * 4);
                out.poison();
                ASSERT_EQ(gc::computeTile(dh.factors, kind, rect[0], rows, rect[2], cols,
                                          out.as<float>(), nullptr),
                          "");
                CUDA_OK(cudaDeviceSynchronize());
                CUDA_OK(cudaMemcpy(gpu.data(), out.ptr, out.bytes, cudaMemcpyDeviceToHost));
                double worst = 0.0;
                // A logit's absolute error is the relative error of its attention weight, and
                // logits near 0 come from cancelling sums: compare logits with an absolute floor.
                const double atol = kind == gk::MapKind::Logit ? 1e-4 : 1e-7;
                const int64_t bad = compareTiles(gpu, cpu, 1e-4, atol, &worst);
                EXPECT_EQ(bad, 0) << "n=" << s.n << " kind=" << gk::toString(kind) << " rect ("
                                  << rect[0] << ", " << rows << ", " << rect[2] << ", " << cols
                                  << "), worst rel " << worst;
            }
        }
        std::printf("[tiles] n=%lld d=%d decay=%d window=%lld: %zu rectangles x 3 maps checked\n",
                    (long long)s.n, s.d, int(s.decay), (long long)s.window, rects.size());
    }
}

TEST_F(CudaTest, Bf16FactorTilesMatchCpuOnRoundedFactors) {
    const int64_t n = 1337;
    const int d = 128;
    HeadData h = makeHead(n, d, true, 0, 9);
    std::vector<uint8_t> qRaw, kRaw;
    h.q = roundTo(gc::DType::BF16, h.q, qRaw);
    h.k = roundTo(gc::DType::BF16, h.k, kRaw);
    h.head.q = h.q.data();
    h.head.k = h.k.data();
    h.head.lse = nullptr;
    gk::attentionForward(h.head, h.out.data(), h.lse.data());
    h.head.lse = h.lse.data();
    DeviceHead dh(h);
    DeviceBuffer q16(qRaw.size()), k16(kRaw.size());
    CUDA_OK(cudaMemcpy(q16.ptr, qRaw.data(), qRaw.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(k16.ptr, kRaw.data(), kRaw.size(), cudaMemcpyHostToDevice));
    gc::DeviceHeadFactors f = dh.factors;
    f.dtype = gc::DType::BF16;
    f.q = q16.ptr;
    f.k = k16.ptr;
    const int64_t row0 = 1000, rows = 300, col0 = 700, cols = 333;
    std::vector<float> cpu(rows * cols), gpu(rows * cols);
    gk::computeTile(h.head, gk::MapKind::Attention, row0, rows, col0, cols, cpu.data());
    DeviceBuffer out(gpu.size() * 4);
    out.poison();
    ASSERT_EQ(gc::computeTile(f, gk::MapKind::Attention, row0, rows, col0, cols, out.as<float>(),
                              nullptr),
              "");
    CUDA_OK(cudaMemcpy(gpu.data(), out.ptr, out.bytes, cudaMemcpyDeviceToHost));
    double worst = 0.0;
    EXPECT_EQ(compareTiles(gpu, cpu, 1e-4, 1e-7, &worst), 0) << "worst rel " << worst;
}

struct PyramidCase {
    int64_t n;
    int d;
    bool decay;
    int64_t window;
    gk::MapKind kind;
    int finest, coarsest;
};

TEST_F(CudaTest, PyramidsMatchCpuBuilder) {
    for (const PyramidCase& pc : {PyramidCase{1337, 64, true, 0, gk::MapKind::Attention, 0, 3},
                                  PyramidCase{4099, 128, true, 0, gk::MapKind::Attention, 2, 7},
                                  PyramidCase{4099, 64, true, 0, gk::MapKind::Decay, 5, 9},
                                  PyramidCase{3001, 64, true, 300, gk::MapKind::Decay, 4, 7},
                                  PyramidCase{3001, 64, true, 300, gk::MapKind::Attention, 1, 6},
                                  PyramidCase{2500, 96, false, 0, gk::MapKind::Attention, 3, 12}}) {
        const HeadData h = makeHead(pc.n, pc.d, pc.decay, pc.window, 1234 + unsigned(pc.n));
        DeviceHead dh(h);
        const int levels = pc.coarsest - pc.finest + 1;
        std::vector<std::vector<float>> cpuMax(levels), cpuMean(levels);
        std::vector<bool> seen;
        for (int l = 0; l < levels; ++l) {
            const int64_t side = gk::pyramidSide(pc.n, pc.finest + l);
            cpuMax[l].assign(side * side, std::nanf(""));
            cpuMean[l].assign(side * side, std::nanf(""));
        }
        gk::PyramidRequest request;
        request.kind = pc.kind;
        request.finestLevel = pc.finest;
        request.coarsestLevel = pc.coarsest;
        request.maxFinestSide = 1 << 16;
        gk::PyramidCallbacks callbacks;
        callbacks.onTile = [&](int level, gk::Pool pool, int64_t tr, int64_t tc, const float* t) {
            const int l = level - pc.finest;
            const int64_t side = gk::pyramidSide(pc.n, level);
            std::vector<float>& dst = pool == gk::Pool::Max ? cpuMax[l] : cpuMean[l];
            for (int64_t y = 0; y < gk::kPyramidTile; ++y)
                for (int64_t x = 0; x < gk::kPyramidTile; ++x) {
                    const int64_t r = tr * gk::kPyramidTile + y, c = tc * gk::kPyramidTile + x;
                    if (r < side && c < side) dst[r * side + c] = t[y * gk::kPyramidTile + x];
                }
        };
        const gk::AdditiveDecayTileSource source(h.head);
        ASSERT_TRUE(gk::buildPyramid(source, request, callbacks));

        std::vector<std::unique_ptr<DeviceBuffer>> maxBufs, meanBufs;
        std::vector<float*> maxPtrs, meanPtrs;
        for (int l = 0; l < levels; ++l) {
            const size_t bytes = cpuMax[l].size() * 4;
            maxBufs.push_back(std::make_unique<DeviceBuffer>(bytes));
            meanBufs.push_back(std::make_unique<DeviceBuffer>(bytes));
            maxBufs.back()->poison();
            meanBufs.back()->poison();
            maxPtrs.push_back(maxBufs.back()->as<float>());
            meanPtrs.push_back(meanBufs.back()->as<float>());
        }
        ASSERT_EQ(gc::buildPyramid(dh.factors, pc.kind, pc.finest, pc.coarsest, maxPtrs.data(),
                                   meanPtrs.data(), nullptr),
                  "");
        CUDA_OK(cudaDeviceSynchronize());
        for (int l = 0; l < levels; ++l) {
            const std::string label =
                std::string("n=") + std::to_string(pc.n) + " " + gk::toString(pc.kind) +
                " window=" + std::to_string(pc.window) + " level " + std::to_string(pc.finest + l);
            expectLevelMatchesCpu(maxPtrs[l], meanPtrs[l], cpuMax[l], cpuMean[l], "pyramid", label);
        }
    }
}

}  // namespace
