#include "gpu_trace_support.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "engine/nn/device_check.h"
#include "engine/trace/trace_job.h"

namespace gatescope::test::gpu {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& name) {
    path = fs::temp_directory_path() /
           fmt::format("gatescope-gpu-{}-{}", name, std::random_device{}());
    fs::create_directories(path);
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

bool gpuUsable(std::string* why) {
    auto device = core::checkDevice("cuda");
    if (!device && why) *why = device.error().message;
    return bool(device);
}

/// fp32: both paths are exact fp32 math (different summation orders). bf16: the GPU's bf16
/// GEMMs (cuBLAS) and the CPU's emulation round the same values but can differ by one bf16 ulp
/// where accumulation orders differ, which later layers carry along. Gates: a one-ulp flip of a
/// bf16 gate logit (ulp 2^-8 relative) moves the power fixture's second-layer gates by 2.3e-2 of
/// their largest magnitude (H100, 2026-11-22), so 3e-2 (about 8 ulps).
Tolerances tolerancesFor(core::ComputeDType dtype) {
    if (dtype == core::ComputeDType::Float32) return {1e-4, 1e-4, 1e-4, 1e-3};
    return {6e-2, 3e-2, 5e-2, 5e-2};
}

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

void traceBothAndCompare(core::TraceRequest request, const fs::path& dir, const std::string& what,
                         std::optional<Tolerances> tolerances, Differences* measured) {
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
    if (measured) *measured = d;
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

core::TraceRequest fixtureRequest(const fs::path& model, core::ComputeDType dtype) {
    core::TraceRequest request;
    request.modelDir = model;
    request.input.path = model / "expected.safetensors";
    request.input.kind = core::InputKind::Safetensors;
    request.input.tensorName = "input_ids";
    request.dtype = dtype;
    request.writer.compression = data::Compression::None;
    return request;
}

core::TraceRequest wallRequest(const fs::path& dir, const WallRefConfig& c, unsigned seed,
                               int tokens) {
    writeCheckpoint(dir / "model", wallConfigJson(c), randomWallWeights(c, seed));
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

}  // namespace gatescope::test::gpu
