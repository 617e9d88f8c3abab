// Batched attention-map pyramids from 16-bit factors (the trace's path: the tensor-core pyramid
// kernel of kernels/cuda/attention_pyramid_mma.cu) against the CPU pyramid builder run head by
// head on the same rounded factors. Cases cover each cell shape the kernel specialises (16, 32,
// 64 and 128 tokens, and 256+ where CTAs meet through atomics), GQA, windows, no decay, and
// sequence lengths that are not multiples of the 128-row block or the 64-key tile.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/tile_recompute.h"
#include "kernels/cuda/attention_cuda.h"
#include "kernels/cuda/pyramid_launch.h"
#include "tests/cuda/cuda_test_support.h"

namespace gk = gatescope::kernels;
namespace gc = gatescope::kernels::cuda;

namespace {

using namespace gatescope::cudatest;

struct BatchCase {
    int64_t n;
    int d;
    int heads, kvGroup;
    bool decay;
    int64_t window;
    DType dtype;
    int finest, coarsest;
};

TEST_F(CudaTest, BatchedSixteenBitPyramidsMatchCpuBuilder) {
    const DType bf = DType::BF16;
    for (const BatchCase& bc : {BatchCase{1337, 64, 3, 1, true, 0, bf, 4, 7},
                                BatchCase{4099, 128, 4, 2, true, 0, bf, 5, 8},
                                BatchCase{3001, 64, 2, 1, true, 300, bf, 6, 9},
                                BatchCase{2500, 128, 2, 2, false, 0, bf, 7, 9},
                                BatchCase{5000, 64, 2, 1, true, 0, DType::F16, 8, 10},
                                BatchCase{700, 128, 2, 1, true, 100, bf, 4, 6}}) {
        std::mt19937 rng(unsigned(bc.n) * 7 + unsigned(bc.finest));
        const int kvHeads = bc.heads / bc.kvGroup;
        const size_t rows = size_t(bc.n) * bc.d;
        std::vector<uint8_t> qRaw, kRaw;
        const std::vector<float> q =
            roundTo(bc.dtype, randomNormal(bc.heads * rows, 1.5f, rng), qRaw);
        const std::vector<float> k =
            roundTo(bc.dtype, randomNormal(kvHeads * rows, 1.5f, rng), kRaw);
        const std::vector<float> v = randomNormal(kvHeads * rows, 1.0f, rng);
        const std::vector<float> c =
            bc.decay ? randomLogDecayCumsum(bc.heads, bc.n, rng) : std::vector<float>{};
        std::vector<float> lse(size_t(bc.heads) * bc.n), out(rows);

        const int levels = bc.coarsest - bc.finest + 1;
        Levels cpuMax(levels), cpuMean(levels);
        for (int l = 0; l < levels; ++l) {
            const int64_t side = gk::pyramidSide(bc.n, bc.finest + l);
            cpuMax[l].assign(size_t(bc.heads) * side * side, std::nanf(""));
            cpuMean[l].assign(size_t(bc.heads) * side * side, std::nanf(""));
        }
        for (int h = 0; h < bc.heads; ++h) {
            gk::AdditiveDecayHead head;
            head.n = bc.n;
            head.dk = head.dv = bc.d;
            head.q = q.data() + h * rows;
            head.k = k.data() + (h / bc.kvGroup) * rows;
            head.v = v.data() + (h / bc.kvGroup) * rows;
            head.logDecayCumsum = bc.decay ? c.data() + h * bc.n : nullptr;
            head.scale = 1.0f / std::sqrt(float(bc.d));
            head.window = bc.window;
            gk::attentionForward(head, out.data(), lse.data() + h * bc.n);
            head.lse = lse.data() + h * bc.n;
            cpuPyramid(gk::AdditiveDecayTileSource(head), gk::MapKind::Attention, bc.n, bc.finest,
                       bc.coarsest, h, cpuMax, cpuMean);
        }

        DeviceBuffer dq(qRaw.size()), dk(kRaw.size()), dlse(lse.size() * 4),
            dc(std::max<size_t>(c.size(), 1) * 4);
        CUDA_OK(cudaMemcpy(dq.ptr, qRaw.data(), qRaw.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dk.ptr, kRaw.data(), kRaw.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dlse.ptr, lse.data(), dlse.bytes, cudaMemcpyHostToDevice));
        if (bc.decay) CUDA_OK(cudaMemcpy(dc.ptr, c.data(), dc.bytes, cudaMemcpyHostToDevice));
        gc::DeviceHeadFactors f;
        f.n = bc.n;
        f.dk = bc.d;
        f.dtype = bc.dtype;
        f.q = dq.ptr;
        f.k = dk.ptr;
        f.logDecayCumsum = bc.decay ? dc.as<float>() : nullptr;
        f.lse = dlse.as<float>();
        f.scale = 1.0f / std::sqrt(float(bc.d));
        f.window = bc.window;
        gc::PyramidHeads batch;
        batch.heads = bc.heads;
        batch.kvGroup = bc.kvGroup;

        // The case is meant for the tensor-core kernel: check the dispatch would take it.
        gc::detail::AttentionPyramidParams probe{};
        probe.q = f.q;
        probe.k = f.k;
        probe.n = bc.n;
        probe.qRow = probe.kRow = bc.d;
        probe.qHead = probe.kHead = bc.n * bc.d;
        probe.level = bc.finest;
        EXPECT_TRUE(gc::detail::attentionPyramidMmaFits(probe, bc.d, bc.dtype));

        std::vector<std::unique_ptr<DeviceBuffer>> bufs;
        std::vector<float*> maxPtrs, meanPtrs;
        for (int l = 0; l < levels; ++l) {
            for (auto* ptrs : {&maxPtrs, &meanPtrs}) {
                bufs.push_back(std::make_unique<DeviceBuffer>(cpuMax[l].size() * 4));
                bufs.back()->poison();
                ptrs->push_back(bufs.back()->as<float>());
            }
        }
        ASSERT_EQ(gc::buildPyramids(f, batch, gk::MapKind::Attention, bc.finest, bc.coarsest,
                                    maxPtrs.data(), meanPtrs.data(), nullptr),
                  "");
        CUDA_OK(cudaDeviceSynchronize());
        for (int l = 0; l < levels; ++l) {
            const std::string label =
                "n=" + std::to_string(bc.n) + " d=" + std::to_string(bc.d) +
                " heads=" + std::to_string(bc.heads) + "/" + std::to_string(kvHeads) +
                " window=" + std::to_string(bc.window) + " level " + std::to_string(bc.finest + l);
            expectLevelMatchesCpu(maxPtrs[l], meanPtrs[l], cpuMax[l], cpuMean[l], "pyramid16",
                                  label);
        }
    }
}

}  // namespace
