// Wall, power and GSA pyramids on the GPU (buildWallPyramids, buildPowerPyramids,
// buildGsaPyramids in kernels/cuda/wall_power_cuda.h) against the CPU pyramid builder over the CPU
// tile sources (kernels/cpu/wall_tile_source.h, power_tile_source.h, gsa_tile_source.h), head by
// head, on the same random factors and the CPU forward's row normalizers. Both maps; GQA, tied and
// subdim Wall gates, ungated heads, fp32 and bf16 inputs, 16 to 64 GSA slots, lengths that are no
// multiple of the 64-token blocks, cells of 1 to 256 tokens. Skipped when no CUDA device is
// present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/gsa_tile_source.h"
#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/power_tile_source.h"
#include "kernels/cpu/wall_forward.h"
#include "kernels/cpu/wall_tile_source.h"
#include "kernels/cuda/wall_power_cuda.h"
#include "tests/cuda/cuda_test_support.h"

namespace gk = gatescope::kernels;
namespace gc = gatescope::kernels::cuda;

namespace {

using namespace gatescope::cudatest;

constexpr int kDv = 8;  // v only feeds the CPU forwards' row normalizers

struct GatedPyramidCase {
    int64_t n;
    int dk, heads, kvGroup, gateGroup;
    int gated;  ///< Wall: gated channels; power: 1 gated, 0 ungated
    DType dtype;
    int finest, coarsest;
};

// Device levels for every head, and their comparison with the CPU's.
struct LevelBuffers {
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    std::vector<float*> max, mean;
    Levels cpuMax, cpuMean;

    LevelBuffers(const GatedPyramidCase& pc) {
        for (int level = pc.finest; level <= pc.coarsest; ++level) {
            const size_t cells =
                size_t(pc.heads) * gk::pyramidSide(pc.n, level) * gk::pyramidSide(pc.n, level);
            for (auto* list : {&max, &mean}) {
                buffers.push_back(std::make_unique<DeviceBuffer>(cells * 4));
                buffers.back()->poison();
                list->push_back(buffers.back()->as<float>());
            }
            cpuMax.emplace_back(cells, std::nanf(""));
            cpuMean.emplace_back(cells, std::nanf(""));
        }
    }
    void expectMatch(const GatedPyramidCase& pc, const std::string& label) {
        CUDA_OK(cudaDeviceSynchronize());
        for (size_t l = 0; l < max.size(); ++l)
            expectLevelMatchesCpu(max[l], mean[l], cpuMax[l], cpuMean[l], "gated-pyramid",
                                  label + " level " + std::to_string(pc.finest + int(l)));
    }
};

// q, k (rounded to the case's dtype) and v on the host; q and k also on the device.
struct CaseOperands {
    std::vector<uint8_t> qRaw, kRaw;
    std::vector<float> q, k, v;
    std::unique_ptr<DeviceBuffer> dq, dk;

    CaseOperands(const GatedPyramidCase& pc, std::mt19937& rng) {
        const size_t rows = size_t(pc.n) * pc.dk, kvHeads = size_t(pc.heads / pc.kvGroup);
        q = roundTo(pc.dtype, randomNormal(pc.heads * rows, 1.5f, rng), qRaw);
        k = roundTo(pc.dtype, randomNormal(kvHeads * rows, 1.5f, rng), kRaw);
        v = randomNormal(kvHeads * size_t(pc.n) * kDv, 1.0f, rng);
        dq = std::make_unique<DeviceBuffer>(qRaw.size());
        dk = std::make_unique<DeviceBuffer>(kRaw.size());
        EXPECT_TRUE(dq->upload(qRaw.data()) && dk->upload(kRaw.data()));
    }
    /// The batch fields every case fills alike: heads, groups, dtype, q, k, scale.
    void describe(const GatedPyramidCase& pc, gc::GatedHeads& b) const {
        b.heads = pc.heads;
        b.n = pc.n;
        b.dk = pc.dk;
        b.kvGroup = pc.kvGroup;
        b.gateGroup = pc.gateGroup;
        b.dtype = pc.dtype;
        b.q = dq->ptr;
        b.k = dk->ptr;
        b.scale = 1.0f / std::sqrt(float(pc.dk));
    }
};

std::string labelOf(const char* model, gk::MapKind kind, const GatedPyramidCase& pc) {
    return std::string(model) + " " + gk::toString(kind) + " n=" + std::to_string(pc.n) +
           " dk=" + std::to_string(pc.dk) + " gated=" + std::to_string(pc.gated);
}

TEST_F(CudaTest, WallPyramidsMatchCpuBuilder) {
    for (const GatedPyramidCase& pc : {GatedPyramidCase{1337, 64, 2, 1, 1, 48, DType::F32, 0, 3},
                                       GatedPyramidCase{3001, 128, 4, 2, 2, 128, DType::F32, 4, 7},
                                       GatedPyramidCase{2500, 37, 2, 1, 1, 0, DType::F32, 5, 8},
                                       GatedPyramidCase{700, 64, 2, 1, 1, 32, DType::BF16, 1, 4}}) {
        std::mt19937 rng(unsigned(pc.n) * 13 + unsigned(pc.dk));
        const CaseOperands ops(pc, rng);
        const size_t rows = size_t(pc.n) * pc.dk;
        const auto P = randomWallCumsum(pc.heads / pc.gateGroup, pc.n, pc.gated, rng);
        std::vector<float> lse(size_t(pc.heads) * pc.n), out(size_t(pc.n) * kDv);
        std::vector<gk::WallHead> heads(pc.heads);
        for (int h = 0; h < pc.heads; ++h) {
            gk::WallHead& head = heads[h];
            head.n = pc.n;
            head.dk = pc.dk;
            head.dv = kDv;
            head.gatedChannels = pc.gated;
            head.q = ops.q.data() + h * rows;
            head.k = ops.k.data() + (h / pc.kvGroup) * rows;
            head.v = ops.v.data() + (h / pc.kvGroup) * size_t(pc.n) * kDv;
            head.logDecayCumsum =
                pc.gated ? P.data() + size_t(h / pc.gateGroup) * pc.n * pc.gated : nullptr;
            head.scale = 1.0f / std::sqrt(float(pc.dk));
            gk::wallForward(head, out.data(), lse.data() + h * pc.n);
            head.lse = lse.data() + h * pc.n;
        }
        DeviceBuffer dlse(lse.size() * 4), dp(std::max<size_t>(P.size(), 1) * 4);
        ASSERT_TRUE(dlse.upload(lse.data()) && (P.empty() || dp.upload(P.data())));
        gc::WallBatch batch;
        ops.describe(pc, batch);
        batch.gatedChannels = pc.gated;
        batch.logDecayCumsum = pc.gated ? dp.as<float>() : nullptr;
        for (auto kind : {gk::MapKind::Attention, gk::MapKind::Decay}) {
            LevelBuffers levels(pc);
            for (int h = 0; h < pc.heads; ++h)
                cpuPyramid(gk::WallTileSource(heads[h]), kind, pc.n, pc.finest, pc.coarsest, h,
                           levels.cpuMax, levels.cpuMean);
            ASSERT_EQ(gc::buildWallPyramids(batch, dlse.as<float>(), kind, pc.finest, pc.coarsest,
                                            levels.max.data(), levels.mean.data(), nullptr),
                      "");
            levels.expectMatch(pc, labelOf("wall", kind, pc));
        }
    }
}

TEST_F(CudaTest, PowerPyramidsMatchCpuBuilder) {
    for (const GatedPyramidCase& pc : {GatedPyramidCase{1337, 64, 2, 1, 1, 1, DType::F32, 0, 3},
                                       GatedPyramidCase{3001, 128, 4, 2, 2, 1, DType::F32, 4, 7},
                                       GatedPyramidCase{2500, 45, 2, 1, 1, 0, DType::F32, 6, 9},
                                       GatedPyramidCase{700, 64, 4, 4, 4, 1, DType::BF16, 2, 4}}) {
        std::mt19937 rng(unsigned(pc.n) * 17 + unsigned(pc.dk));
        const CaseOperands ops(pc, rng);
        const size_t rows = size_t(pc.n) * pc.dk;
        // G per k/v head, as the models keep it (gateGroup = kvGroup).
        const auto G =
            pc.gated ? randomPowerCumsum(pc.heads / pc.kvGroup, pc.n, rng) : std::vector<float>{};
        std::vector<float> logNorm(size_t(pc.heads) * pc.n), out(size_t(pc.n) * kDv);
        std::vector<gk::PowerHead> heads(pc.heads);
        for (int h = 0; h < pc.heads; ++h) {
            gk::PowerHead& head = heads[h];
            head.n = pc.n;
            head.dk = pc.dk;
            head.dv = kDv;
            head.q = ops.q.data() + h * rows;
            head.k = ops.k.data() + (h / pc.kvGroup) * rows;
            head.v = ops.v.data() + (h / pc.kvGroup) * size_t(pc.n) * kDv;
            head.logDecayCumsum = pc.gated ? G.data() + size_t(h / pc.gateGroup) * pc.n : nullptr;
            head.scale = 1.0f / std::sqrt(float(pc.dk));
            gk::powerAttentionForward(head, out.data(), logNorm.data() + h * pc.n);
            head.logNormalizer = logNorm.data() + h * pc.n;
        }
        DeviceBuffer dln(logNorm.size() * 4), dg(std::max<size_t>(G.size(), 1) * 4);
        ASSERT_TRUE(dln.upload(logNorm.data()) && (G.empty() || dg.upload(G.data())));
        gc::PowerBatch batch;
        ops.describe(pc, batch);
        batch.logDecayCumsum = pc.gated ? dg.as<float>() : nullptr;
        batch.eps = gk::kPowerLogEps;
        for (auto kind : {gk::MapKind::Attention, gk::MapKind::Decay}) {
            LevelBuffers levels(pc);
            for (int h = 0; h < pc.heads; ++h)
                cpuPyramid(gk::PowerTileSource(heads[h]), kind, pc.n, pc.finest, pc.coarsest, h,
                           levels.cpuMax, levels.cpuMean);
            ASSERT_EQ(gc::buildPowerPyramids(batch, dln.as<float>(), kind, pc.finest, pc.coarsest,
                                             levels.max.data(), levels.mean.data(), nullptr),
                      "");
            levels.expectMatch(pc, labelOf("power", kind, pc));
        }
    }
}

// GSA factors as a layer stores them: p a softmax over the slots, log alpha = logsigmoid(x) / 8
// with x ~ N(2, 2) (slow forgetting: G falls by about 0.04 a token), s = 1 - alpha, G accumulated
// in double and rounded once.
TEST_F(CudaTest, GsaPyramidsMatchCpuBuilder) {
    for (const GatedPyramidCase& pc : {GatedPyramidCase{1337, 16, 2, 1, 1, 16, DType::F32, 0, 3},
                                       GatedPyramidCase{3001, 64, 4, 1, 1, 64, DType::F32, 4, 7},
                                       GatedPyramidCase{700, 32, 2, 1, 1, 32, DType::F32, 1, 4}}) {
        std::mt19937 rng(unsigned(pc.n) * 19 + unsigned(pc.dk));
        const int m = pc.dk;
        const size_t cells = size_t(pc.heads) * pc.n * m;
        std::vector<float> p(cells), s(cells), G(cells);
        std::normal_distribution<double> normal(0.0, 1.0);
        for (int h = 0; h < pc.heads; ++h) {
            std::vector<double> g(m, 0.0);
            for (int64_t t = 0; t < pc.n; ++t) {
                const size_t row = (size_t(h) * pc.n + t) * m;
                double sum = 0.0;
                for (int j = 0; j < m; ++j)
                    sum += (p[row + j] = float(std::exp(2 * normal(rng))));
                for (int j = 0; j < m; ++j) {
                    p[row + j] = float(p[row + j] / sum);
                    const double x = 2.0 + 2.0 * normal(rng);
                    const double logAlpha = -std::log1p(std::exp(-x)) / 8.0;
                    s[row + j] = float(1.0 - std::exp(logAlpha));
                    g[j] += logAlpha;
                    G[row + j] = float(g[j]);
                }
            }
        }
        DeviceBuffer dp(cells * 4), ds(cells * 4), dG(cells * 4);
        ASSERT_TRUE(dp.upload(p.data()) && ds.upload(s.data()) && dG.upload(G.data()));
        gc::GsaBatch batch;
        batch.heads = pc.heads;
        batch.n = pc.n;
        batch.slots = m;
        batch.slotProbs = dp.as<float>();
        batch.write = ds.as<float>();
        batch.logForgetCumsum = dG.as<float>();
        for (auto kind : {gk::MapKind::Attention, gk::MapKind::Decay}) {
            LevelBuffers levels(pc);
            for (int h = 0; h < pc.heads; ++h) {
                const size_t at = size_t(h) * pc.n * m;
                const gk::GsaHead head{pc.n, m, p.data() + at, s.data() + at, G.data() + at};
                cpuPyramid(gk::GsaTileSource(head), kind, pc.n, pc.finest, pc.coarsest, h,
                           levels.cpuMax, levels.cpuMean);
            }
            ASSERT_EQ(gc::buildGsaPyramids(batch, kind, pc.finest, pc.coarsest, levels.max.data(),
                                           levels.mean.data(), nullptr),
                      "");
            levels.expectMatch(pc, labelOf("gsa", kind, pc));
        }
    }
}

}  // namespace
