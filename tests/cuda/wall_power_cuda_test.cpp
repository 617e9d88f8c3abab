// The Wall and power CUDA forwards (kernels/cuda/wall_power_cuda.h) against the CPU kernels
// (kernels/cpu/wall_forward.h, power_attention.h) on fresh random inputs: sizes that are no
// multiple of the 64-row tiles, head dims 64, 128 and odd ones, GQA, subdim and tied gates, fp32
// and 16-bit inputs, outputs poisoned (NaN) before each run, and one 70000-token head whose
// cumulative gates reach far past exp's range to show that nothing overflows. Skipped when no
// CUDA device is present. GATESCOPE_CUDA_TIMING=1 also times both kernels at 16 heads, d = 128.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/wall_forward.h"
#include "kernels/cuda/wall_power_cuda.h"
#include "tests/cuda/cuda_test_support.h"

namespace gk = gatescope::kernels;
namespace gc = gatescope::kernels::cuda;

namespace {

using namespace gatescope::cudatest;

using WallPowerCudaTest = CudaTest;

struct GatedCase {
    const char* name;
    int heads;
    int64_t n;
    int dk, dv;
    gc::DType dtype;
    bool roundProbs;  ///< bf16 probabilities (the models' bf16 path)
    int kvGroup;
    int gated;       ///< Wall: gated channels (-1: all); power: 1 gated, 0 ungated
    bool tied;       ///< gates per k/v head (Wall's tie_gates; power's G is always per k/v head)
    int degree = 2;  ///< power only
    /// Wall only: randomWallCumsum (fast channels: most diagonal tiles too steep for the
    /// tensor-core kernel's one anchor), clampedWallCumsum (the models' soft clamp: none are), or
    /// clamped with a steep burst (some are).
    enum class Gates { Mixed, Clamped, Burst } gates = Gates::Mixed;
};

/// Whether the current device runs sm_90a code (the build always holds it for the tensor-core
/// kernels).
bool sm90Device() {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    return major == 9 && minor == 0;
}

/// bf16 with rounded probabilities at d = 64 or 128: the Wall and power tensor-core kernels.
bool tensorCoreShape(const GatedCase& tc) {
    return tc.dtype == gc::DType::BF16 && tc.roundProbs && tc.dk == tc.dv &&
           (tc.dk == 64 || tc.dk == 128);
}

std::ostream& operator<<(std::ostream& os, const GatedCase& c) {
    return os << c.name;
}

/// Device copies of q, k, v (in the case's dtype), with the rounded host values.
struct Operands {
    std::vector<float> q, k, v;
    std::vector<uint8_t> qRaw, kRaw, vRaw;
};

Operands makeOperands(const GatedCase& tc, std::mt19937& rng) {
    const int kvHeads = tc.heads / tc.kvGroup;
    Operands o;
    o.q = roundTo(tc.dtype, randomNormal(size_t(tc.heads) * tc.n * tc.dk, 1.5f, rng), o.qRaw);
    o.k = roundTo(tc.dtype, randomNormal(size_t(kvHeads) * tc.n * tc.dk, 1.5f, rng), o.kRaw);
    o.v = roundTo(tc.dtype, randomNormal(size_t(kvHeads) * tc.n * tc.dv, 1.0f, rng), o.vRaw);
    return o;
}

double outTolerance(const GatedCase& tc) {
    return tc.dtype == gc::DType::BF16 || tc.roundProbs ? 1e-2
           : tc.dtype == gc::DType::F16                 ? 3e-3
                                                        : 1e-4;
}

// ---------------------------------------------------------------------------------------------
// Wall
// ---------------------------------------------------------------------------------------------

// The tensor-core kernel multiplies q exp(P_i - P_i0) and k exp(P_i0 - P_j) rounded to bf16, as
// the official kernel does (the CPU reference keeps them in fp32): each term of a logit moves by
// up to 2^-8 of itself, about 1e-2 on a logit of these inputs and the lse with it (the largest
// measured, over the cases here: 5.1e-3 of 1 + |lse|, GQA 4 with steep bursts).
constexpr double kTensorCoreLseTolerance = 1e-2;

class WallForwardTest : public WallPowerCudaTest,
                        public ::testing::WithParamInterface<GatedCase> {};

TEST_P(WallForwardTest, MatchesCpuForward) {
    const GatedCase& tc = GetParam();
    std::mt19937 rng(0xa11 + static_cast<unsigned>(tc.n * 31 + tc.dk * 7 + tc.heads));
    const int64_t n = tc.n;
    const int dg = tc.gated < 0 ? tc.dk : tc.gated;
    const int gateGroup = tc.tied ? tc.kvGroup : 1;
    const int gateHeads = tc.heads / gateGroup;
    const Operands ops = makeOperands(tc, rng);
    const std::vector<float> P =
        tc.gates == GatedCase::Gates::Mixed
            ? randomWallCumsum(gateHeads, n, dg, rng)
            : clampedWallCumsum(gateHeads, n, dg, tc.gates == GatedCase::Gates::Burst, rng);

    DeviceBuffer dq(ops.qRaw.size()), dk(ops.kRaw.size()), dv(ops.vRaw.size()),
        dp(std::max<size_t>(P.size(), 1) * 4);
    DeviceBuffer dout(size_t(tc.heads) * n * tc.dv * elementSize(tc.dtype)),
        dlse(size_t(tc.heads) * n * 4);
    ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dp.ptr && dout.ptr && dlse.ptr);
    ASSERT_TRUE(dq.upload(ops.qRaw.data()) && dk.upload(ops.kRaw.data()) &&
                dv.upload(ops.vRaw.data()));
    if (!P.empty()) CUDA_OK(cudaMemcpy(dp.ptr, P.data(), P.size() * 4, cudaMemcpyHostToDevice));
    dout.poison();
    dlse.poison();

    gc::WallBatch batch;
    batch.heads = tc.heads;
    batch.n = n;
    batch.dk = tc.dk;
    batch.dv = tc.dv;
    batch.gatedChannels = dg;
    batch.kvGroup = tc.kvGroup;
    batch.gateGroup = gateGroup;
    batch.dtype = tc.dtype;
    batch.q = dq.ptr;
    batch.k = dk.ptr;
    batch.v = dv.ptr;
    batch.logDecayCumsum = dg ? dp.as<float>() : nullptr;
    batch.scale = 1.0f / std::sqrt(float(tc.dk));
    gc::ForwardOutputs outputs;
    outputs.out = dout.ptr;
    outputs.lse = dlse.as<float>();
    gc::GatedForwardOptions options;
    options.roundProbsToBf16 = tc.roundProbs;
    // The tensor-core kernel runs wherever it can (a silent fallback would pass the checks below).
    const size_t workspaceBytes = gc::wallWorkspaceBytes(batch, outputs, options);
    DeviceBuffer workspace(workspaceBytes);
    ASSERT_TRUE(workspace.ptr);
    workspace.poison();
    batch.workspace = workspaceBytes ? workspace.ptr : nullptr;
    const bool tensorCores = tensorCoreShape(tc) && sm90Device();
    EXPECT_EQ(gc::wallUsesTensorCores(batch, outputs, options), tensorCores);
    ASSERT_EQ(gc::wallForward(batch, outputs, nullptr, options), "");
    CUDA_OK(cudaDeviceSynchronize());

    const std::vector<float> out = dout.floatsOnHost(tc.dtype);
    const std::vector<float> lse = dlse.floatsOnHost(gc::DType::F32);
    ASSERT_FALSE(out.empty() || lse.empty());

    std::vector<float> refOut(out.size()), refLse(lse.size());
    std::vector<gk::WallHead> heads(tc.heads);
    std::vector<float*> outs(tc.heads), lses(tc.heads);
    for (int h = 0; h < tc.heads; ++h) {
        gk::WallHead& head = heads[h];
        const int kv = h / tc.kvGroup, gate = h / gateGroup;
        head.n = n;
        head.dk = tc.dk;
        head.dv = tc.dv;
        head.gatedChannels = dg;
        head.q = ops.q.data() + size_t(h) * n * tc.dk;
        head.k = ops.k.data() + size_t(kv) * n * tc.dk;
        head.v = ops.v.data() + size_t(kv) * n * tc.dv;
        head.logDecayCumsum = dg ? P.data() + size_t(gate) * n * dg : nullptr;
        head.scale = batch.scale;
        outs[h] = refOut.data() + size_t(h) * n * tc.dv;
        lses[h] = refLse.data() + size_t(h) * n;
    }
    gk::ForwardOptions cpuOptions;
    cpuOptions.roundProbsToBf16 = tc.roundProbs;
    gk::wallForwardHeads(heads.data(), tc.heads, outs.data(), lses.data(), cpuOptions);

    const Errors e = compare(out, refOut, lse, refLse);
    const double tol = outTolerance(tc);
    std::printf("[wall %s%s] rel_l2=%.3e max_abs=%.3e (max|ref| %.3f) lse_max_rel=%.3e\n", tc.name,
                tensorCores ? " tensor cores" : "", e.rel, e.maxAbs, e.maxRef, e.lseMax);
    EXPECT_EQ(e.nans, 0) << "unwritten or non-finite output elements";
    EXPECT_EQ(e.lseNans, 0) << "unwritten or non-finite lse";
    EXPECT_LT(e.rel, tol);
    EXPECT_LT(e.maxAbs, 8 * tol * std::max(e.maxRef, 1.0));
    EXPECT_LT(e.lseMax, tensorCores ? kTensorCoreLseTolerance : 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Wall, WallForwardTest,
    ::testing::Values(
        GatedCase{"f32_d64_N17", 2, 17, 64, 64, gc::DType::F32, false, 1, -1, false},
        GatedCase{"f32_d64_N1000", 3, 1000, 64, 64, gc::DType::F32, false, 1, -1, false},
        GatedCase{"f32_d128_N1337_dg32", 2, 1337, 128, 128, gc::DType::F32, false, 1, 32, false},
        GatedCase{"f32_d128_N3001_gqa_tied_dg64", 4, 3001, 128, 128, gc::DType::F32, false, 2, 64,
                  true},
        GatedCase{"f32_d96_N1337_gqa_untied", 4, 1337, 96, 96, gc::DType::F32, false, 2, 48, false},
        GatedCase{"f32_d37_dv45_N1000", 2, 1000, 37, 45, gc::DType::F32, false, 1, 19, false},
        GatedCase{"f32_d200_N1000", 1, 1000, 200, 200, gc::DType::F32, false, 1, 100, false},
        GatedCase{"f32_d64_N1000_ungated", 2, 1000, 64, 64, gc::DType::F32, false, 1, 0, false},
        GatedCase{"f32_bf16probs_d64_N1337", 2, 1337, 64, 64, gc::DType::F32, true, 1, -1, false},
        GatedCase{"bf16_d128_N1337_dg64", 2, 1337, 128, 128, gc::DType::BF16, true, 1, 64, false},
        GatedCase{"bf16_d64_N3001_gqa_tied", 4, 3001, 64, 64, gc::DType::BF16, true, 4, -1, true},
        GatedCase{"f16_d128_N1000", 2, 1000, 128, 128, gc::DType::F16, false, 1, -1, false},
        // The tensor-core kernel (sm_90a): the models' clamped gates, steep bursts, ungated,
        // subdim gates that are no multiple of 8, GQA with tied and untied gates, short N.
        GatedCase{"bf16_d128_N1337_clamped", 2, 1337, 128, 128, gc::DType::BF16, true, 1, -1, false,
                  2, GatedCase::Gates::Clamped},
        GatedCase{"bf16_d64_N3001_gqa_untied_clamped", 4, 3001, 64, 64, gc::DType::BF16, true, 2,
                  -1, false, 2, GatedCase::Gates::Clamped},
        GatedCase{"bf16_d128_N2001_gqa_tied_burst", 4, 2001, 128, 128, gc::DType::BF16, true, 2, -1,
                  true, 2, GatedCase::Gates::Burst},
        GatedCase{"bf16_d64_N1000_dg37_burst", 2, 1000, 64, 64, gc::DType::BF16, true, 1, 37, false,
                  2, GatedCase::Gates::Burst},
        GatedCase{"bf16_d128_N1000_ungated", 2, 1000, 128, 128, gc::DType::BF16, true, 1, 0, false},
        GatedCase{"bf16_d64_N17_clamped", 3, 17, 64, 64, gc::DType::BF16, true, 1, -1, false, 2,
                  GatedCase::Gates::Clamped},
        GatedCase{"bf16_d128_N130_dg100_clamped", 2, 130, 128, 128, gc::DType::BF16, true, 1, 100,
                  false, 2, GatedCase::Gates::Clamped},
        // Whole tiles only (N a multiple of 64), and GQA 4 with untied gates.
        GatedCase{"bf16_d64_N64_clamped", 2, 64, 64, 64, gc::DType::BF16, true, 1, -1, false, 2,
                  GatedCase::Gates::Clamped},
        GatedCase{"bf16_d128_N1024_gqa4_untied_burst", 4, 1024, 128, 128, gc::DType::BF16, true, 4,
                  -1, false, 2, GatedCase::Gates::Burst}),
    [](const ::testing::TestParamInfo<GatedCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Power
// ---------------------------------------------------------------------------------------------

class PowerForwardTest : public WallPowerCudaTest,
                         public ::testing::WithParamInterface<GatedCase> {};

TEST_P(PowerForwardTest, MatchesCpuForward) {
    const GatedCase& tc = GetParam();
    std::mt19937 rng(0x90e + static_cast<unsigned>(tc.n * 31 + tc.dk * 7 + tc.heads));
    const int64_t n = tc.n;
    const int kvHeads = tc.heads / tc.kvGroup;
    const Operands ops = makeOperands(tc, rng);
    const std::vector<float> G =
        tc.gated ? randomPowerCumsum(kvHeads, n, rng) : std::vector<float>{};

    DeviceBuffer dq(ops.qRaw.size()), dk(ops.kRaw.size()), dv(ops.vRaw.size()),
        dg(std::max<size_t>(G.size(), 1) * 4);
    DeviceBuffer dout(size_t(tc.heads) * n * tc.dv * elementSize(tc.dtype)),
        dlse(size_t(tc.heads) * n * 4);
    ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dg.ptr && dout.ptr && dlse.ptr);
    ASSERT_TRUE(dq.upload(ops.qRaw.data()) && dk.upload(ops.kRaw.data()) &&
                dv.upload(ops.vRaw.data()));
    if (!G.empty()) CUDA_OK(cudaMemcpy(dg.ptr, G.data(), G.size() * 4, cudaMemcpyHostToDevice));
    dout.poison();
    dlse.poison();

    gc::PowerBatch batch;
    batch.heads = tc.heads;
    batch.n = n;
    batch.dk = tc.dk;
    batch.dv = tc.dv;
    batch.kvGroup = tc.kvGroup;
    batch.gateGroup = tc.kvGroup;
    batch.dtype = tc.dtype;
    batch.q = dq.ptr;
    batch.k = dk.ptr;
    batch.v = dv.ptr;
    batch.logDecayCumsum = tc.gated ? dg.as<float>() : nullptr;
    batch.scale = 1.0f / std::sqrt(float(tc.dk));
    batch.degree = tc.degree;
    batch.eps = gk::kPowerLogEps;
    gc::ForwardOutputs outputs;
    outputs.out = dout.ptr;
    outputs.lse = dlse.as<float>();
    gc::GatedForwardOptions options;
    options.roundProbsToBf16 = tc.roundProbs;
    // bf16 with rounded probabilities at d = 64 or 128 runs on tensor cores on an H100/H200; a
    // silent fallback would pass the checks below.
    EXPECT_EQ(gc::powerUsesTensorCores(batch, outputs, options),
              tensorCoreShape(tc) && sm90Device());
    ASSERT_EQ(gc::powerForward(batch, outputs, nullptr, options), "");
    CUDA_OK(cudaDeviceSynchronize());

    const std::vector<float> out = dout.floatsOnHost(tc.dtype);
    const std::vector<float> lse = dlse.floatsOnHost(gc::DType::F32);
    ASSERT_FALSE(out.empty() || lse.empty());

    std::vector<float> refOut(out.size()), refLse(lse.size());
    std::vector<gk::PowerHead> heads(tc.heads);
    std::vector<float*> outs(tc.heads), lses(tc.heads);
    for (int h = 0; h < tc.heads; ++h) {
        gk::PowerHead& head = heads[h];
        const int kv = h / tc.kvGroup;
        head.n = n;
        head.dk = tc.dk;
        head.dv = tc.dv;
        head.q = ops.q.data() + size_t(h) * n * tc.dk;
        head.k = ops.k.data() + size_t(kv) * n * tc.dk;
        head.v = ops.v.data() + size_t(kv) * n * tc.dv;
        head.logDecayCumsum = tc.gated ? G.data() + size_t(kv) * n : nullptr;
        head.scale = batch.scale;
        head.degree = tc.degree;
        outs[h] = refOut.data() + size_t(h) * n * tc.dv;
        lses[h] = refLse.data() + size_t(h) * n;
    }
    gk::PowerForwardOptions cpuOptions;
    cpuOptions.roundProbsToBf16 = tc.roundProbs;
    gk::powerAttentionForwardHeads(heads.data(), tc.heads, outs.data(), lses.data(), cpuOptions);

    const Errors e = compare(out, refOut, lse, refLse);
    const double tol = outTolerance(tc);
    // With bf16 weights the row sum adds rounded terms, so a term that rounds the other way on
    // one side moves log l by up to 2^-9 of its weight.
    const double lseTol = tc.roundProbs ? 1e-3 : 1e-4;
    std::printf("[power %s] rel_l2=%.3e max_abs=%.3e (max|ref| %.3f) lognorm_max_rel=%.3e\n",
                tc.name, e.rel, e.maxAbs, e.maxRef, e.lseMax);
    EXPECT_EQ(e.nans, 0) << "unwritten or non-finite output elements";
    EXPECT_EQ(e.lseNans, 0) << "unwritten or non-finite logNormalizer";
    EXPECT_LT(e.rel, tol);
    EXPECT_LT(e.maxAbs, 8 * tol * std::max(e.maxRef, 1.0));
    EXPECT_LT(e.lseMax, lseTol);
}

INSTANTIATE_TEST_SUITE_P(
    Power, PowerForwardTest,
    ::testing::Values(
        GatedCase{"f32_d64_N17", 2, 17, 64, 64, gc::DType::F32, false, 1, 1, false},
        GatedCase{"f32_d64_N1000", 3, 1000, 64, 64, gc::DType::F32, false, 1, 1, false},
        GatedCase{"f32_d128_N1337", 2, 1337, 128, 128, gc::DType::F32, false, 1, 1, false},
        GatedCase{"f32_d128_N3001_gqa", 4, 3001, 128, 128, gc::DType::F32, false, 2, 1, false},
        GatedCase{"f32_d37_dv45_N1000", 2, 1000, 37, 45, gc::DType::F32, false, 1, 1, false},
        GatedCase{"f32_d96_N1337_ungated", 2, 1337, 96, 96, gc::DType::F32, false, 1, 0, false},
        GatedCase{"f32_d64_N1000_degree4", 2, 1000, 64, 64, gc::DType::F32, false, 1, 1, false, 4},
        GatedCase{"f32_bf16probs_d64_N1337", 2, 1337, 64, 64, gc::DType::F32, true, 1, 1, false},
        GatedCase{"bf16_d128_N1337", 2, 1337, 128, 128, gc::DType::BF16, true, 1, 1, false},
        GatedCase{"bf16_d64_N3001_gqa", 4, 3001, 64, 64, gc::DType::BF16, true, 4, 1, false},
        GatedCase{"f16_d128_N1000", 2, 1000, 128, 128, gc::DType::F16, false, 1, 1, false},
        // Tensor cores (sm_90a): both d = 64 variants (double buffer below 4096 keys, ping-pong
        // from there), d = 128, ungated, degree 4, gates per k/v head, rows past a tile.
        GatedCase{"bf16_d64_N17", 2, 17, 64, 64, gc::DType::BF16, true, 1, 1, false},
        GatedCase{"bf16_d64_N4099_ungated", 2, 4099, 64, 64, gc::DType::BF16, true, 1, 0, false},
        GatedCase{"bf16_d64_N5001_gqa_degree4", 4, 5001, 64, 64, gc::DType::BF16, true, 2, 1, false,
                  4},
        GatedCase{"bf16_d128_N2001_gqa_ungated", 4, 2001, 128, 128, gc::DType::BF16, true, 4, 0,
                  false},
        GatedCase{"bf16_d128_N1000_degree6", 2, 1000, 128, 128, gc::DType::BF16, true, 1, 1, false,
                  6},
        // bf16 with unrounded probabilities: the CUDA-core kernel.
        GatedCase{"bf16_unrounded_d64_N1000", 2, 1000, 64, 64, gc::DType::BF16, false, 1, 1,
                  false}),
    [](const ::testing::TestParamInfo<GatedCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Long sequence: P far beyond exp's range
// ---------------------------------------------------------------------------------------------

/// One Wall head of tc.n tokens (its P reaching below -1000) against the CPU forward.
void checkLongWallHead(const GatedCase& tc, const std::vector<float>& P, const Operands& ops,
                       double outTol, double lseTol) {
    const int64_t n = tc.n;
    const int d = tc.dk, dg = tc.gated;
    float pMin = 0.0f;
    for (float x : P)
        pMin = std::min(pMin, x);
    // exp(-P) of a naive q exp(P), k exp(-P) rescale overflows float past P = -88.
    ASSERT_LT(pMin, -1000.0f);

    DeviceBuffer dq(ops.qRaw.size()), dk(ops.kRaw.size()), dv(ops.vRaw.size()), dp(P.size() * 4);
    DeviceBuffer dout(size_t(n) * d * elementSize(tc.dtype)), dlse(size_t(n) * 4);
    ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dp.ptr && dout.ptr && dlse.ptr);
    ASSERT_TRUE(dq.upload(ops.qRaw.data()) && dk.upload(ops.kRaw.data()) &&
                dv.upload(ops.vRaw.data()) && dp.upload(P.data()));
    dout.poison();
    dlse.poison();
    gc::WallBatch batch;
    batch.heads = 1;
    batch.n = n;
    batch.dk = batch.dv = d;
    batch.gatedChannels = dg;
    batch.dtype = tc.dtype;
    batch.q = dq.ptr;
    batch.k = dk.ptr;
    batch.v = dv.ptr;
    batch.logDecayCumsum = dp.as<float>();
    batch.scale = 1.0f / std::sqrt(float(d));
    gc::ForwardOutputs outputs;
    outputs.out = dout.ptr;
    outputs.lse = dlse.as<float>();
    gc::GatedForwardOptions options;
    options.roundProbsToBf16 = tc.roundProbs;
    const size_t workspaceBytes = gc::wallWorkspaceBytes(batch, outputs, options);
    DeviceBuffer workspace(workspaceBytes);
    ASSERT_TRUE(workspace.ptr);
    batch.workspace = workspaceBytes ? workspace.ptr : nullptr;
    const bool tensorCores = tensorCoreShape(tc) && sm90Device();
    EXPECT_EQ(gc::wallUsesTensorCores(batch, outputs, options), tensorCores);
    ASSERT_EQ(gc::wallForward(batch, outputs, nullptr, options), "");
    CUDA_OK(cudaDeviceSynchronize());
    const std::vector<float> out = dout.floatsOnHost(tc.dtype);
    const std::vector<float> lse = dlse.floatsOnHost(gc::DType::F32);
    ASSERT_FALSE(out.empty() || lse.empty());

    gk::WallHead head;
    head.n = n;
    head.dk = head.dv = d;
    head.gatedChannels = dg;
    head.q = ops.q.data();
    head.k = ops.k.data();
    head.v = ops.v.data();
    head.logDecayCumsum = P.data();
    head.scale = batch.scale;
    std::vector<float> refOut(out.size()), refLse(n);
    float* outPtr = refOut.data();
    float* lsePtr = refLse.data();
    gk::ForwardOptions cpuOptions;
    cpuOptions.roundProbsToBf16 = tc.roundProbs;
    gk::wallForwardHeads(&head, 1, &outPtr, &lsePtr, cpuOptions);
    const Errors e = compare(out, refOut, lse, refLse);
    std::printf(
        "[wall long %s%s N=%lld d=%d dg=%d min P %.0f] rel_l2=%.3e max_abs=%.3e "
        "lse_max_rel=%.3e\n",
        tc.name, tensorCores ? " tensor cores" : "", (long long)n, d, dg, pMin, e.rel, e.maxAbs,
        e.lseMax);
    EXPECT_EQ(e.nans, 0);
    EXPECT_EQ(e.lseNans, 0);
    EXPECT_LT(e.rel, outTol);
    EXPECT_LT(e.lseMax, lseTol);
}

TEST_F(WallPowerCudaTest, WallLongSequenceDoesNotOverflow) {
    std::mt19937 rng(70000);
    const GatedCase tc{"f32", 1, 70000, 32, 32, gc::DType::F32, false, 1, 24, false};
    const Operands ops = makeOperands(tc, rng);
    checkLongWallHead(tc, randomWallCumsum(1, tc.n, tc.gated, rng), ops, 1e-4, 1e-4);
}

// The tensor-core kernel's anchors at |P| in the thousands, with steep tiles among them.
TEST_F(WallPowerCudaTest, WallTensorCoresLongSequence) {
    std::mt19937 rng(20000);
    const GatedCase tc{"bf16", 1, 20000, 64, 64, gc::DType::BF16, true, 1, 64, false};
    const Operands ops = makeOperands(tc, rng);
    checkLongWallHead(tc, clampedWallCumsum(1, tc.n, tc.gated, true, rng), ops, 1e-2,
                      kTensorCoreLseTolerance);
}

TEST_F(WallPowerCudaTest, RejectsBadBatches) {
    gc::WallBatch wall;
    wall.heads = 2;
    wall.n = 10;
    wall.dk = 300;
    wall.dv = 64;
    gc::ForwardOutputs outputs;
    EXPECT_NE(gc::wallForward(wall, outputs, nullptr), "");
    wall.dk = 64;
    wall.gatedChannels = 65;
    EXPECT_NE(gc::wallForward(wall, outputs, nullptr), "");
    wall.gatedChannels = 0;
    EXPECT_NE(gc::wallForward(wall, outputs, nullptr), "");  // null pointers
    gc::PowerBatch power;
    power.heads = 2;
    power.n = 10;
    power.dk = power.dv = 64;
    power.degree = 3;
    EXPECT_NE(gc::powerForward(power, outputs, nullptr), "");
    power.n = 0;
    power.degree = 2;
    EXPECT_EQ(gc::powerForward(power, outputs, nullptr), "");  // nothing to do
}

// A workspace the tensor-core kernel cannot use (not 16-byte aligned) is an error naming it, not a
// silent switch of kernels; without the tensor-core kernel it is never read.
TEST_F(WallPowerCudaTest, WallRejectsAMisalignedWorkspace) {
    const int64_t n = 100;
    const int d = 64;
    DeviceBuffer dq(n * d * 2), dk(n * d * 2), dv(n * d * 2), dp(n * d * 4), dout(n * d * 2);
    DeviceBuffer workspace(n * d * 2 + 16);
    ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dp.ptr && dout.ptr && workspace.ptr);
    for (const DeviceBuffer* b : {&dq, &dk, &dv, &dp})
        CUDA_OK(cudaMemset(b->ptr, 0, b->bytes));
    gc::WallBatch wall;
    wall.heads = 1;
    wall.n = n;
    wall.dk = wall.dv = d;
    wall.gatedChannels = d;
    wall.dtype = gc::DType::BF16;
    wall.q = dq.ptr;
    wall.k = dk.ptr;
    wall.v = dv.ptr;
    wall.logDecayCumsum = dp.as<float>();
    gc::ForwardOutputs outputs;
    outputs.out = dout.ptr;
    gc::GatedForwardOptions options;
    options.roundProbsToBf16 = true;
    wall.workspace = static_cast<char*>(workspace.ptr) + 2;
    const std::string error = gc::wallForward(wall, outputs, nullptr, options);
    CUDA_OK(cudaDeviceSynchronize());
    if (sm90Device())
        EXPECT_NE(error.find("workspace"), std::string::npos) << error;
    else
        EXPECT_EQ(error, "");
}

// ---------------------------------------------------------------------------------------------
// Timing (GATESCOPE_CUDA_TIMING=1): 16 heads, d = 128, bf16 and fp32 inputs, fp32 arithmetic
// ---------------------------------------------------------------------------------------------

TEST_F(WallPowerCudaTest, WallPowerTiming) {
    const char* env = std::getenv("GATESCOPE_CUDA_TIMING");
    if (!env || std::string(env) != "1") GTEST_SKIP() << "set GATESCOPE_CUDA_TIMING=1";
    const int heads = 16, d = 128;
    for (gc::DType dtype : {gc::DType::BF16, gc::DType::F32}) {
        for (int64_t n : {int64_t{16384}, int64_t{65536}}) {
            const size_t elems = size_t(heads) * n * d, bytes = elems * elementSize(dtype);
            DeviceBuffer q(bytes), k(bytes), v(bytes), out(bytes), lse(size_t(heads) * n * 4),
                p(elems * 4), g(size_t(heads) * n * 4);
            ASSERT_TRUE(q.ptr && k.ptr && v.ptr && out.ptr && lse.ptr && p.ptr && g.ptr);
            // Small finite values (bytes 0x3C: bf16 0.0115, fp32 0.0115) and zero gates: timing
            // only.
            CUDA_OK(cudaMemset(q.ptr, 0x3C, bytes));
            CUDA_OK(cudaMemset(k.ptr, 0x3C, bytes));
            CUDA_OK(cudaMemset(v.ptr, 0x3C, bytes));
            CUDA_OK(cudaMemset(p.ptr, 0, elems * 4));
            CUDA_OK(cudaMemset(g.ptr, 0, size_t(heads) * n * 4));
            gc::ForwardOutputs outputs;
            outputs.out = out.ptr;
            outputs.lse = lse.as<float>();
            gc::WallBatch wall;
            wall.heads = heads;
            wall.n = n;
            wall.dk = wall.dv = wall.gatedChannels = d;
            wall.dtype = dtype;
            wall.q = q.ptr;
            wall.k = k.ptr;
            wall.v = v.ptr;
            wall.logDecayCumsum = p.as<float>();
            wall.scale = 1.0f / std::sqrt(float(d));
            gc::PowerBatch power;
            power.heads = heads;
            power.n = n;
            power.dk = power.dv = d;
            power.dtype = dtype;
            power.q = q.ptr;
            power.k = k.ptr;
            power.v = v.ptr;
            power.logDecayCumsum = g.as<float>();
            power.scale = wall.scale;
            gc::GatedForwardOptions options;
            options.roundProbsToBf16 = true;
            cudaEvent_t start, stop;
            CUDA_OK(cudaEventCreate(&start));
            CUDA_OK(cudaEventCreate(&stop));
            for (int which = 0; which < 2; ++which) {
                auto run = [&] {
                    return which == 0 ? gc::wallForward(wall, outputs, nullptr, options)
                                      : gc::powerForward(power, outputs, nullptr, options);
                };
                ASSERT_EQ(run(), "");  // warm-up
                const int reps = n > 20000 ? 2 : 5;
                CUDA_OK(cudaEventRecord(start));
                for (int r = 0; r < reps; ++r)
                    ASSERT_EQ(run(), "");
                CUDA_OK(cudaEventRecord(stop));
                CUDA_OK(cudaEventSynchronize(stop));
                float ms = 0.0f;
                CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
                ms /= reps;
                // Causal FLOPs of Q.K^T and P.V: 2 x (n^2 / 2) x d x 2 per head.
                const double tflops = 2.0 * double(n) * n * d * heads / (ms * 1e-3) / 1e12;
                std::printf(
                    "[timing] %s forward: heads=%d n=%lld d=%d %s in, fp32 math: %.2f ms "
                    "(%.1f TFLOP/s causal)\n",
                    which == 0 ? "wall" : "power", heads, (long long)n, d,
                    dtype == gc::DType::F32 ? "fp32" : "bf16", ms, tflops);
            }
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
        }
    }
}

}  // namespace
