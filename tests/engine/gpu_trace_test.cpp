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
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/model/model.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/nn/device_check.h"
#include "engine/trace/trace_job.h"
#include "fixture_support.h"
#include "wall_reference_model.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;

struct ScratchDir {
    fs::path path;
    explicit ScratchDir(const std::string& name) {
        path = fs::temp_directory_path() /
               fmt::format("gatescope-gpu-{}-{}", name, std::random_device{}());
        fs::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

bool gpuUsable(std::string* why = nullptr) {
    auto device = core::checkDevice("cuda");
    if (!device && why) *why = device.error().message;
    return bool(device);
}

#define GATESCOPE_REQUIRE_GPU()                                  \
    do {                                                         \
        std::string why;                                         \
        if (!gpuUsable(&why)) GTEST_SKIP() << "no GPU: " << why; \
    } while (0)

struct Tolerances {
    double loss, gates, factors, pyramids;
};

/// fp32: both paths are exact fp32 math (different summation orders). bf16: the GPU's bf16
/// GEMMs (cuBLAS) and the CPU's emulation round the same values but can differ by one bf16 ulp
/// where accumulation orders differ, which later layers carry along. Gates: a one-ulp flip of a
/// bf16 gate logit (ulp 2^-8 relative) moves the power fixture's second-layer gates by 2.3e-2 of
/// their largest magnitude (H100, 2026-11-22), so 3e-2 (about 8 ulps).
Tolerances tolerancesFor(core::ComputeDType dtype) {
    if (dtype == core::ComputeDType::Float32) return {1e-4, 1e-4, 1e-4, 1e-3};
    return {6e-2, 3e-2, 5e-2, 5e-2};
}

struct Differences {
    double loss = 0, gates = 0, factors = 0, pyramids = 0;  ///< gates, factors: relative to max
    std::string worstFactor;
    int64_t tiles = 0;
};

double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (std::isnan(a[i]) && std::isnan(b[i])) continue;
        const double d = std::abs(double(a[i]) - double(b[i]));
        worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    return worst;
}

/// Every per-token value, gate, factor and pyramid tile of `gpu` against `cpu`.
Differences compareTraces(const data::TraceReader& cpu, const data::TraceReader& gpu) {
    Differences diff;
    const auto& cs = cpu.summary();
    const auto& gs = gpu.summary();
    EXPECT_EQ(cs.nTokens, gs.nTokens);
    EXPECT_EQ(cs.layers.size(), gs.layers.size());
    const int64_t n = cs.nTokens;
    auto cl = cpu.perToken(), gl = gpu.perToken();
    EXPECT_TRUE(cl && gl);
    if (cl && gl) {
        diff.loss = maxAbsDiff(cl->loss, gl->loss);
        EXPECT_EQ(cl->targetRank.size(), gl->targetRank.size());
        // The top predictions' log-probabilities, sorted, agree as the loss does (their ids
        // may swap where two are within rounding of each other).
        EXPECT_EQ(cl->topK, gl->topK);
        diff.loss = std::max(diff.loss, maxAbsDiff(cl->topLogProbs, gl->topLogProbs));
        EXPECT_EQ(cl->vocabIds.empty(), gl->vocabIds.empty());
    }
    for (const auto& layer : cs.layers) {
        const auto* other = gs.layer(layer.index);
        EXPECT_NE(other, nullptr) << "layer " << layer.index;
        if (!other) continue;
        EXPECT_EQ(layer.header.scoreKind, other->header.scoreKind);
        if (layer.hasGates) {
            auto a = cpu.gates(layer.index), b = gpu.gates(layer.index);
            EXPECT_TRUE(a && b);
            if (a && b) {
                double scale = 1e-6;
                for (float x : a->values)
                    scale = std::max(scale, double(std::abs(x)));
                diff.gates = std::max(diff.gates, maxAbsDiff(a->values, b->values) / scale);
            }
        }
        for (const auto& f : layer.factors) {
            EXPECT_NE(other->factor(f.name), nullptr) << f.name;
            double worst = 0, scale = 1e-6;
            for (int64_t h = 0; h < f.shape[0]; ++h) {
                auto a = cpu.factor(layer.index, f.name, int(h), 0, n);
                auto b = gpu.factor(layer.index, f.name, int(h), 0, n);
                EXPECT_TRUE(a && b) << f.name;
                if (!a || !b) continue;
                worst = std::max(worst, maxAbsDiff(a->values, b->values));
                for (float x : a->values)
                    scale = std::max(scale, double(std::abs(x)));
            }
            if (worst / scale > diff.factors) {
                diff.factors = worst / scale;
                diff.worstFactor = fmt::format("layer {} {}", layer.index, f.name);
            }
        }
        for (const auto& p : layer.pyramids) {
            EXPECT_NE(other->pyramid(p.map), nullptr) << p.map;
            for (int level : p.levels) {
                const int64_t side = (n + (int64_t{1} << level) - 1) >> level;
                const int64_t tiles = (side + data::kTileSide - 1) / data::kTileSide;
                for (int h = 0; h < p.heads; ++h)
                    for (auto pool : p.pools)
                        for (int64_t tr = 0; tr < tiles; ++tr)
                            for (int64_t tc = 0; tc <= tr; ++tc) {
                                auto a =
                                    cpu.pyramidTile(layer.index, p.map, pool, level, h, tr, tc);
                                auto b =
                                    gpu.pyramidTile(layer.index, p.map, pool, level, h, tr, tc);
                                EXPECT_TRUE(a && b);
                                if (!a || !b) continue;
                                diff.pyramids =
                                    std::max(diff.pyramids, maxAbsDiff(*a->data, *b->data));
                                ++diff.tiles;
                            }
            }
        }
    }
    return diff;
}

/// Traces `request` on the CPU and on the GPU and compares the two files.
/// `tolerances` default to tolerancesFor(request.dtype).
void traceBothAndCompare(core::TraceRequest request, const fs::path& dir, const std::string& what,
                         std::optional<Tolerances> tolerances = std::nullopt) {
    request.out = dir / "cpu.h5";
    request.device = "cpu";
    auto cpuRun = core::runTraceJob(request, {}, nullptr);
    ASSERT_TRUE(cpuRun) << cpuRun.error().describe();
    request.out = dir / "gpu.h5";
    request.device = "cuda";
    auto gpuRun = core::runTraceJob(request, {}, nullptr);
    ASSERT_TRUE(gpuRun) << gpuRun.error().describe();
    EXPECT_EQ(gpuRun->device.rfind("cuda:0: ", 0), 0u) << gpuRun->device;
    EXPECT_EQ(gpuRun->attentionPath.rfind("cuda", 0), 0u) << gpuRun->attentionPath;
    auto cpu = data::TraceReader::open(dir / "cpu.h5");
    auto gpu = data::TraceReader::open(dir / "gpu.h5");
    ASSERT_TRUE(cpu && gpu);
    auto manifest = (*gpu)->manifest();
    ASSERT_TRUE(manifest);
    EXPECT_EQ((*manifest)["device"].get<std::string>(), gpuRun->device);
    const auto d = compareTraces(**cpu, **gpu);
    const auto tol = tolerances.value_or(tolerancesFor(request.dtype));
    const std::string dtype(core::toString(request.dtype));
    std::printf(
        "[gpu-trace] %-28s %-8s N=%-5lld loss %.2e  gates %.2e  factors %.2e (%s)  "
        "pyramids %.2e (%lld tiles)  path %s\n",
        what.c_str(), dtype.c_str(), static_cast<long long>((*cpu)->summary().nTokens), d.loss,
        d.gates, d.factors, d.worstFactor.c_str(), d.pyramids, static_cast<long long>(d.tiles),
        gpuRun->attentionPath.c_str());
    std::fflush(stdout);
    EXPECT_LE(d.loss, tol.loss) << what;
    EXPECT_LE(d.gates, tol.gates) << what;
    EXPECT_LE(d.factors, tol.factors) << what << ": " << d.worstFactor;
    EXPECT_LE(d.pyramids, tol.pyramids) << what;
    EXPECT_GT(d.tiles, 0) << what;
}

TEST(GpuTrace, DeviceCudaFailsClearlyWhereNoGpuCanRun) {
    if (gpuUsable()) GTEST_SKIP() << "a GPU is usable here";
    ScratchDir dir("nogpu");
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
    ScratchDir dir("fixture");
    core::TraceRequest request;
    request.modelDir = model;
    request.input.path = model / "expected.safetensors";
    request.input.kind = core::InputKind::Safetensors;
    request.input.tensorName = "input_ids";
    request.dtype = GetParam().dtype;
    request.storeValues = true;
    request.writer.compression = data::Compression::None;
    traceBothAndCompare(request, dir.path, GetParam().folder);
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
    ScratchDir dir("random");
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
    traceBothAndCompare(request, dir.path,
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

/// A random Wall checkpoint of `c` (the float64 reference model's weights) in dir/model and a
/// trace request for `tokens` token ids of it, uncompressed.
core::TraceRequest wallRequest(const fs::path& dir, const test::WallRefConfig& c, unsigned seed,
                               int tokens) {
    test::writeCheckpoint(dir / "model", test::wallConfigJson(c), test::randomWallWeights(c, seed));
    {
        std::ofstream ids(dir / "in.ids");
        for (int i = 0; i < tokens; ++i)
            ids << (i * 7 + i / 5) % c.vocab << ' ';
    }
    core::TraceRequest request;
    request.modelDir = dir / "model";
    request.input.path = dir / "in.ids";
    request.input.kind = core::InputKind::Ids;
    request.writer.compression = data::Compression::None;
    return request;
}

/// The loss gets 1e-3, not 1e-4: Wall's cumulative gates P grow with the position, and float32
/// P_i - R carries an absolute rounding of |P| ulp, which the two kernels place differently (the
/// GPU anchors R on the query block's first row, the CPU on the key tile's last key): about 1e-5
/// relative on the probabilities, 2.1e-4 on the loss after two layers (measured on an H100).
/// Gates, factors and pyramids keep the float32 tolerances.
Tolerances wallTolerances() {
    Tolerances tolerances = tolerancesFor(core::ComputeDType::Float32);
    tolerances.loss = 1e-3;
    return tolerances;
}

// Wall (no published checkpoints: the float64 reference model's random weights, in the
// configuration trace_zoo_test checks against that model): the CUDA forward and the GPU pyramids
// (buildWallPyramids) against the CPU trace. GQA, tied gates on half of each head's channels,
// 1500 tokens (several 64-token blocks, cells of 2 tokens).
TEST(GpuWallTrace, MatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    ScratchDir dir("wall");
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true, c.gateDim = 4;
    auto request = wallRequest(dir.path, c, 11u, 1500);
    request.pyramidFinestSide = 1024;
    traceBothAndCompare(request, dir.path, "random wall d=8 gqa tied", wallTolerances());
}

// The options of the authors' reference (window, sink, scalar gate) and packed documents, which
// the CUDA forward and buildWallPyramids do not know: inside the GPU forward the Wall op runs the
// CPU kernel (the path says so) and the layer's pyramids come from the exact CPU tiles.
TEST(GpuWallTrace, WithTheReferenceOptionsMatchesTheCpuTrace) {
    GATESCOPE_REQUIRE_GPU();
    ScratchDir dir("wall-options");
    test::WallRefConfig c;
    c.kvHeads = 2, c.tieGates = true, c.gateDim = 4;
    c.window = 100, c.sink = true, c.scalarGate = true;
    auto request = wallRequest(dir.path, c, 13u, 1300);
    request.documents = core::parseDocumentSplit("at:500,501,1000").value();
    traceBothAndCompare(request, dir.path, "random wall options+documents", wallTolerances());
    auto gpu = data::TraceReader::open(dir.path / "gpu.h5");
    ASSERT_TRUE(gpu);
    EXPECT_EQ((*gpu)->manifest().value()["attention_path"],
              "cuda+cpu-blockwise-wall (Wall op on CPU: packed documents)");
}

}  // namespace
}  // namespace gatescope
