// `trace --device cuda` against the CPU path: the same checkpoint and input traced on the CPU and
// on the GPU (core::runTraceJob, as the CLI runs it), then per-token loss, gates, every stored
// factor and every pyramid tile compared within dtype tolerances. Fixtures (../shared/fixtures)
// cover every architecture; random FoX/Transformer checkpoints cover the tensor-core head dims
// (64, 128), lengths that are not multiples of the tiles and several pyramid levels. Skipped
// (GTEST_SKIP) where no GPU can run; where none can, `--device cuda` must fail, never fall back.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/trace/trace_job.h"
#include "fixture_support.h"
#include "gpu_trace_support.h"
#include "power_test_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
namespace gpu = test::gpu;

TEST(GpuTrace, DeviceCudaFailsClearlyWhereNoGpuCanRun) {
    if (gpu::gpuUsable()) GTEST_SKIP() << "a GPU is usable here";
    gpu::ScratchDir dir("nogpu");
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(dir.path / "model", {}));
    {
        std::ofstream ids(dir.path / "in.ids");
        ids << "1 2 3 4 5 6 7 8";
    }
    core::TraceRequest request;
    request.modelDir = dir.path / "model";
    request.input.path = dir.path / "in.ids";
    request.input.kind = core::InputKind::Ids;
    request.out = dir.path / "t.h5";
    request.device = "cuda";
    auto outcome = core::runTraceJob(request, {}, nullptr);
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, ErrorKind::Unsupported);
    EXPECT_NE(outcome.error().message.find("--device cuda"), std::string::npos)
        << outcome.error().message;
    EXPECT_FALSE(fs::exists(request.out));
}

struct FixtureCase {
    const char* folder;
    core::ComputeDType dtype;
};

class GpuFixtureTrace : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(GpuFixtureTrace, MatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_FIXTURE(model, GetParam().folder);
    GATESCOPE_REQUIRE_GPU();
    gpu::ScratchDir dir("fixture");
    auto request = gpu::fixtureRequest(model, GetParam().dtype);
    request.storeValues = true;
    gpu::traceBothAndCompare(request, dir.path, GetParam().folder);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, GpuFixtureTrace,
    ::testing::Values(FixtureCase{"fox/fox-pro", core::ComputeDType::Float32},
                      FixtureCase{"fox/fox-pro", core::ComputeDType::BFloat16},
                      FixtureCase{"fox/transformer-pro-rope", core::ComputeDType::Float32},
                      FixtureCase{"fox/transformer-pro-rope", core::ComputeDType::BFloat16},
                      FixtureCase{"gatedfwa/gatedfwa", core::ComputeDType::Float32},
                      FixtureCase{"gatedfwa/gatedfwa", core::ComputeDType::BFloat16},
                      FixtureCase{"power/power", core::ComputeDType::Float32},
                      FixtureCase{"power/power", core::ComputeDType::BFloat16},
                      FixtureCase{"gsa/gsa", core::ComputeDType::Float32},
                      FixtureCase{"gsa/gsa", core::ComputeDType::BFloat16}),
    [](const auto& info) {
        std::string name = info.param.folder;
        for (auto& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name + (info.param.dtype == core::ComputeDType::Float32 ? "_f32" : "_bf16");
    });

struct RandomCase {
    int hidden, heads;
    bool forgetGate;
    int64_t tokens;
    core::ComputeDType dtype;
};

class GpuRandomFoxTrace : public ::testing::TestWithParam<RandomCase> {};

// Head dims 64 and 128 take the tensor-core kernel in bf16 (the fixtures' 32 takes the fallback);
// N = 1337, 2001 and 3001 are no multiple of the 64-row blocks or 256-cell tiles; pyramid side 256
// gives several levels (finest 2^3 tokens per cell).
TEST_P(GpuRandomFoxTrace, MatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    const auto c = GetParam();
    gpu::ScratchDir dir("random");
    core::RandomFoxSpec spec;
    spec.layers = 2;
    spec.hiddenSize = c.hidden;
    spec.heads = c.heads;
    spec.vocabSize = 256;
    spec.forgetGate = c.forgetGate;
    spec.seed = 5;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(dir.path / "model", spec));
    {
        std::ofstream ids(dir.path / "in.ids");
        std::mt19937 rng(3);
        for (int64_t i = 0; i < c.tokens; ++i)
            ids << 32 + rng() % 95 << ' ';  // printable ASCII: the byte tokenizer decodes them
    }
    core::TraceRequest request;
    request.modelDir = dir.path / "model";
    request.input.path = dir.path / "in.ids";
    request.input.kind = core::InputKind::Ids;
    request.dtype = c.dtype;
    request.pyramidFinestSide = 256;
    request.writer.compression = data::Compression::None;
    gpu::traceBothAndCompare(
        request, dir.path,
        fmt::format("random {} d={}", c.forgetGate ? "fox-pro" : "transformer-pro",
                    c.hidden / c.heads));
}

INSTANTIATE_TEST_SUITE_P(
    Random, GpuRandomFoxTrace,
    ::testing::Values(RandomCase{256, 4, true, 1337, core::ComputeDType::BFloat16},
                      RandomCase{256, 4, true, 1337, core::ComputeDType::Float32},
                      RandomCase{512, 4, false, 2001, core::ComputeDType::BFloat16},
                      RandomCase{512, 4, true, 2001, core::ComputeDType::BFloat16},
                      // From 2048 keys the d = 64 forward ping-pongs its warpgroups (sm_90a), and
                      // 16-token cells take the tensor-core attention pyramid.
                      RandomCase{256, 4, true, 3001, core::ComputeDType::BFloat16}),
    [](const auto& info) {
        const auto& c = info.param;
        return fmt::format("{}_d{}_N{}_{}", c.forgetGate ? "fox" : "transformer",
                           c.hidden / c.heads, c.tokens,
                           c.dtype == core::ComputeDType::Float32 ? "f32" : "bf16");
    });

// Power at head dims 64 and 128 in bf16: the operands reach kernels::cuda::powerForward as bf16,
// which runs on tensor cores on sm_90a (the fixture's head dim takes the CUDA-core kernel). GQA,
// gates with fast and slow heads (one forgets about 1.4 nats a token), degree 2 and 4, 1500
// tokens.
TEST(GpuPowerTrace, TensorCoreHeadDimsMatchTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    for (const int headDim : {64, 128}) {
        test::power::RefConfig c;
        c.vocab = 256, c.layers = 2, c.kvHeads = 2, c.ratio = 2, c.headDim = headDim;
        c.hidden = 192, c.degree = headDim == 64 ? 2 : 4;
        test::power::Weights weights;
        std::map<std::string, std::vector<int64_t>> shapes;
        test::power::randomWeights(c, 17u + headDim, weights, shapes);
        // Embeddings (tied to the LM head) at 0.1 of randomWeights' scale: logits of a few units,
        // as trained models have. At scale 1 the logits span tens of nats and bf16 rounding of
        // the residual stream alone moves a token's loss by over a nat (1.75 here with the fp32
        // CUDA-core power kernel as with the tensor-core one, measured on an H200).
        for (const char* name : {"transformer.wte.weight", "lm_head.weight"})
            for (float& value : weights[name])
                value *= 0.1f;
        const test::power::ScratchCheckpoint model(weights, shapes, test::power::configJson(c),
                                                   fmt::format("gpu_d{}", headDim));
        gpu::ScratchDir dir(fmt::format("power-d{}", headDim));
        {
            std::ofstream ids(dir.path / "in.ids");
            for (int i = 0; i < 1500; ++i)
                ids << (i * 11 + i / 7) % c.vocab << ' ';
        }
        core::TraceRequest request;
        request.modelDir = model.dir();
        request.input.path = dir.path / "in.ids";
        request.input.kind = core::InputKind::Ids;
        request.dtype = core::ComputeDType::BFloat16;
        request.pyramidFinestSide = 256;
        request.writer.compression = data::Compression::None;
        // Loss to 0.15 (bf16 default 0.06): the two traces differ by 5.9e-2 (d = 64) and 9.4e-2
        // (d = 128) in loss whichever CUDA kernel runs the attention (the fp32 CUDA-core one and
        // the tensor-core one agree to three digits in every column, H200): the bf16 GEMMs before
        // it decide, amplified by log|q.k| where q.k is near 0. Gates, factors (the log
        // normalizer among them) and pyramids keep the bf16 tolerances.
        gpu::Tolerances tolerances = gpu::tolerancesFor(core::ComputeDType::BFloat16);
        tolerances.loss = 0.15;
        gpu::traceBothAndCompare(request, dir.path,
                                 fmt::format("random power d={} p={}", headDim, c.degree),
                                 tolerances);
    }
}

// Wall (no published checkpoints: the float64 reference model's random weights, in the
// configuration trace_zoo_test checks against that model): the CUDA forward and the GPU pyramids
// (buildWallPyramids) against the CPU trace. GQA, tied gates on half of each head's channels,
// 1500 tokens (several 64-token blocks, cells of 2 tokens).
TEST(GpuWallTrace, MatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    gpu::ScratchDir dir("wall");
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true, c.gateDim = 4;
    auto request = gpu::wallRequest(dir.path, c, 11u, 1500);
    request.pyramidFinestSide = 1024;
    gpu::traceBothAndCompare(request, dir.path, "random wall d=8 gqa tied", gpu::wallTolerances());
}

// bf16 Wall models at head dims 64 and 128, the shapes the tensor-core forward takes on an
// H100/H200 (kernels::cuda::wallUsesTensorCores; tests/cuda checks that it is taken): GQA with
// tied gates on all channels, untied gates on 100 of 128, the float64 reference model's
// soft-clamped random gates, 1500 tokens, against the CPU trace with bf16 tolerances.
TEST(GpuWallTrace, TensorCoreHeadDimsMatchTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    for (const int headDim : {64, 128}) {
        gpu::ScratchDir dir(fmt::format("wall-d{}", headDim));
        test::WallRefConfig c;
        c.kvHeads = 2, c.headDim = headDim;
        c.tieGates = headDim == 64;
        c.gateDim = headDim == 64 ? 64 : 100;
        // q and k weights at 0.15 (randomWallWeights: 0.5): logits of about one unit, as trained
        // models have. At 0.5 they span tens and bf16 rounding of the residual stream alone moves
        // the loss by 0.10-0.24 with the fp32 CUDA-core Wall kernel as with the tensor-core one.
        c.qkWeightScale = 0.15;
        auto request = gpu::wallRequest(dir.path, c, 19u + headDim, 1500);
        request.dtype = core::ComputeDType::BFloat16;
        request.pyramidFinestSide = 256;
        // Loss to 0.1 (bf16 default 0.06): measured 6.1e-2 (d = 64) and 4.7e-2 (d = 128) with the
        // tensor-core kernel, 5.9e-2 and 6.0e-2 with the CUDA-core one (A/B in one call, H200).
        gpu::Tolerances tolerances = gpu::tolerancesFor(core::ComputeDType::BFloat16);
        tolerances.loss = 0.1;
        gpu::traceBothAndCompare(request, dir.path, fmt::format("random wall bf16 d={}", headDim),
                                 tolerances);
    }
}

// The options of the authors' reference (window, sink, scalar gate) and packed documents, which
// the CUDA forward and buildWallPyramids do not know: inside the GPU forward the Wall op runs the
// CPU kernel (the path says so) and the layer's pyramids come from the exact CPU tiles.
TEST(GpuWallTrace, WithTheReferenceOptionsMatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    gpu::ScratchDir dir("wall-options");
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true, c.gateDim = 4;
    c.window = 100, c.sink = true, c.scalarGate = true;
    auto request = gpu::wallRequest(dir.path, c, 13u, 1300);
    request.documents = core::parseDocumentSplit("at:500,501,1000").value();
    gpu::traceBothAndCompare(request, dir.path, "random wall options+documents",
                             gpu::wallTolerances());
    auto gpu = data::TraceReader::open(dir.path / "gpu.h5");
    ASSERT_TRUE(gpu);
    EXPECT_EQ((*gpu)->manifest().value()["attention_path"],
              "cuda+cpu-blockwise-wall (Wall op on CPU: packed documents)");
}

}  // namespace
}  // namespace gatescope
