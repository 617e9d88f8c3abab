// Trace I/O benchmark (not a test): write throughput and file size for each compression choice,
// and random 256 x 256 tile-read latency from a large trace. Prints a Markdown table; the numbers
// and the command line are recorded in docs/benchmarks.md.
//
// Usage: trace_io_bench [--n 65536] [--layers 4] [--heads 4] [--dim 64] [--reads 2000]
//                       [--dir /tmp] [--only deflate|none|zstd|lz4] [--keep 1]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "data/trace/manifest.h"
#include "data/trace/trace_reader.h"
#include "data/trace/trace_writer.h"

using namespace gatescope;
using namespace gatescope::data;
using Clock = std::chrono::steady_clock;

namespace {

struct Config {
    int64_t n = 65536;
    int layers = 4;
    int heads = 4;
    int dim = 64;
    int reads = 2000;
    std::string dir = "/tmp";
    std::string only;
    bool keep = false;  // keep the written traces (to inspect them)
};

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU seconds of this thread: on a shared, overloaded machine wall time also counts waiting for
// a core, so both are reported.
double cpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// One head's worth of data, generated once and reused for every head and layer (each chunk is
// compressed on its own, so repetition across chunks does not help any compressor).
struct HeadData {
    std::vector<float> q, k, v, lse, logDecay, gates;
    // tiles[map][pool][level - finest][causal tile index], 256 x 256 each
    std::vector<std::vector<std::vector<std::vector<std::vector<float>>>>> tiles;
};

HeadData makeHeadData(const Config& c, PyramidLevels levels) {
    std::mt19937 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    HeadData d;
    for (auto* f : {&d.q, &d.k, &d.v}) {
        f->resize(c.n * c.dim);
        for (auto& x : *f)
            x = normal(rng);
    }
    d.lse.resize(c.n);
    d.logDecay.resize(c.n);
    d.gates.resize(c.n);
    float cumsum = 0;
    for (int64_t i = 0; i < c.n; ++i) {
        d.gates[i] = -0.02f * (1.0f + unit(rng));  // log forget gate, near 1 retention
        cumsum += d.gates[i];
        d.logDecay[i] = cumsum;
        d.lse[i] = std::log(static_cast<float>(i + 1)) + 0.5f * normal(rng);
    }
    // Attention-like maps: a sink at key 0, a local band, a 1/(i+1) floor, a little noise;
    // decay maps: exp(-rate (i - j)) for the pooled cell distance.
    d.tiles.resize(2);
    for (int map = 0; map < 2; ++map) {
        d.tiles[map].resize(2);
        for (int pool = 0; pool < 2; ++pool)
            for (int level = levels.finest; level <= levels.coarsest; ++level) {
                double cell = std::ldexp(1.0, level);
                int64_t t = tilesPerSide(c.n, level);
                std::vector<std::vector<float>> tiles;
                for (int64_t tr = 0; tr < t; ++tr)
                    for (int64_t tc = 0; tc <= tr; ++tc) {
                        std::vector<float> tile(kTileSide * kTileSide);
                        for (int64_t r = 0; r < kTileSide; ++r)
                            for (int64_t col = 0; col < kTileSide; ++col) {
                                double i = (tr * kTileSide + r + 0.5) * cell;
                                double j = (tc * kTileSide + col + 0.5) * cell;
                                double dist = std::max(0.0, i - j);
                                double value;
                                if (map == 0) {
                                    value = (j < cell ? 0.3 : 0.0) + 0.5 * std::exp(-dist / 64.0) +
                                            1.0 / (i + 1.0);
                                    value *= pool == 0 ? 1.5 : 1.0 / cell;
                                } else {
                                    value = std::exp(-0.01 * dist);
                                }
                                tile[r * kTileSide + col] =
                                    static_cast<float>(value * (1.0 + 0.01 * normal(rng)));
                            }
                        tiles.push_back(std::move(tile));
                    }
                d.tiles[map][pool].push_back(std::move(tiles));
            }
    }
    return d;
}

nlohmann::json benchManifest() {
    return {{"checkpoint", {{"path", "bench"}, {"weight_sha256", nlohmann::json::object()}}},
            {"model_type", "bench"},
            {"model_config", nlohmann::json::object()},
            {"tokenizer", "none"},
            {"input", {{"sha256", std::string(64, '0')}, {"kind", "ids"}}},
            {"gatescope", {{"version", "bench"}, {"git_revision", "bench"}}},
            {"device", "cpu"},
            {"dtypes", {{"trace", "float32"}}},
            {"attention_path", "none"},
            {"created_at", Manifest::utcNow()}};
}

struct WriteResult {
    double seconds = 0;
    double cpu = 0;
    double rawBytes = 0;
    uintmax_t fileBytes = 0;
};

Result<WriteResult> writeTrace(const Config& c, const HeadData& d, PyramidLevels levels,
                               const std::filesystem::path& path, Compression compression) {
    TokenTable tokens;
    PerTokenResults per;
    for (int64_t i = 0; i < c.n; ++i) {
        tokens.ids.push_back(static_cast<int32_t>(i % 50000));
        tokens.text.push_back("tok");
        tokens.byteOffsets.push_back({0, 0});
        per.loss.push_back(d.lse[i]);
        per.targetRank.push_back(static_cast<int32_t>(i % 100));
        per.entropy.push_back(d.lse[i] * 0.5f);
    }
    per.loss.back() = NAN;
    WriteResult result;
    auto start = Clock::now();
    double cpuStart = cpuSeconds();
    auto w = TraceWriter::create(path, TraceWriterOptions{compression, 4, false});
    if (!w) return w.error();
    Status rc = (*w)->writeManifest(benchManifest());
    if (rc) rc = (*w)->writeTokens(tokens);
    if (rc) rc = (*w)->writePerToken(per);
    result.rawBytes += c.n * (4 + 8 * 2 + 4 * 3);
    for (int l = 0; rc && l < c.layers; ++l) {
        rc = (*w)->writeLayer(l, {c.heads, c.heads, c.dim, c.dim, 1, "additive_decay", {}});
        if (rc) rc = (*w)->declareGates(l, c.heads, 1);
        for (const char* name : {"q", "k", "v"})
            if (rc) rc = (*w)->declareFactor(l, name, {c.heads, c.n, c.dim});
        for (const char* name : {"lse", "log_decay_cumsum"})
            if (rc) rc = (*w)->declareFactor(l, name, {c.heads, c.n});
        for (int h = 0; rc && h < c.heads; ++h) {
            rc = (*w)->writeGatesHead(l, h, d.gates.data());
            if (rc) rc = (*w)->writeFactorHead(l, "q", h, d.q.data());
            if (rc) rc = (*w)->writeFactorHead(l, "k", h, d.k.data());
            if (rc) rc = (*w)->writeFactorHead(l, "v", h, d.v.data());
            if (rc) rc = (*w)->writeFactorHead(l, "lse", h, d.lse.data());
            if (rc) rc = (*w)->writeFactorHead(l, "log_decay_cumsum", h, d.logDecay.data());
            result.rawBytes += 4.0 * c.n * (3 * c.dim + 3);
        }
        for (int map = 0; rc && map < 2; ++map) {
            const char* mapName = map == 0 ? "attention" : "decay";
            rc = (*w)->createPyramid(l, mapName, levels, c.heads);
            for (int pool = 0; rc && pool < 2; ++pool)
                for (int level = levels.finest; rc && level <= levels.coarsest; ++level) {
                    const auto& tiles = d.tiles[map][pool][level - levels.finest];
                    int64_t t = tilesPerSide(c.n, level), side = levelSide(c.n, level);
                    for (int h = 0; rc && h < c.heads; ++h)
                        for (int64_t tr = 0, k = 0; rc && tr < t; ++tr)
                            for (int64_t tc = 0; rc && tc <= tr; ++tc, ++k) {
                                rc = (*w)->writePyramidTile(l, mapName,
                                                            pool ? Pool::Mean : Pool::Max, level, h,
                                                            tr, tc, tiles[k].data());
                                result.rawBytes += 4.0 *
                                                   std::min(kTileSide, side - tr * kTileSide) *
                                                   std::min(kTileSide, side - tc * kTileSide);
                            }
                }
        }
    }
    if (rc) rc = (*w)->commit();
    if (!rc) return rc.error();
    result.seconds = seconds(start);
    result.cpu = cpuSeconds() - cpuStart;
    result.fileBytes = std::filesystem::file_size(path);
    return result;
}

struct Latency {
    double mean = 0, p50 = 0, p99 = 0;
};

Latency summarize(std::vector<double> us) {
    std::sort(us.begin(), us.end());
    Latency l;
    for (double x : us)
        l.mean += x / us.size();
    l.p50 = us[us.size() / 2];
    l.p99 = us[std::min(us.size() - 1, us.size() * 99 / 100)];
    return l;
}

struct ReadResult {
    double openMs = 0;
    Latency cold, coldCpu, warm, factorCold;
};

Result<ReadResult> readTrace(const Config& c, PyramidLevels levels,
                             const std::filesystem::path& path) {
    ReadResult out;
    auto start = Clock::now();
    auto uncached = TraceReader::open(path, ReaderOptions{0});
    if (!uncached) return uncached.error();
    out.openMs = seconds(start) * 1e3;
    auto cached = TraceReader::open(path);
    if (!cached) return cached.error();
    std::mt19937 rng(7);
    std::vector<double> cold, coldCpu, warm, factor;
    for (int i = 0; i < c.reads; ++i) {
        int layer = static_cast<int>(rng() % c.layers), head = static_cast<int>(rng() % c.heads);
        int level = levels.finest + static_cast<int>(rng() % levels.count());
        int64_t t = tilesPerSide(c.n, level);
        int64_t tr = static_cast<int64_t>(rng() % t), tc = static_cast<int64_t>(rng() % (tr + 1));
        const char* map = rng() % 2 ? "attention" : "decay";
        Pool pool = rng() % 2 ? Pool::Max : Pool::Mean;
        auto t0 = Clock::now();
        double c0 = cpuSeconds();
        auto tile = (*uncached)->pyramidTile(layer, map, pool, level, head, tr, tc);
        cold.push_back(seconds(t0) * 1e6);
        coldCpu.push_back((cpuSeconds() - c0) * 1e6);
        if (!tile) return tile.error();
        (void)(*cached)->pyramidTile(layer, map, pool, level, head, tr, tc);
        t0 = Clock::now();
        auto again = (*cached)->pyramidTile(layer, map, pool, level, head, tr, tc);
        warm.push_back(seconds(t0) * 1e6);
        if (!again) return again.error();
        int64_t row = static_cast<int64_t>(rng() % (c.n - 256));
        t0 = Clock::now();
        auto q = (*uncached)->factor(layer, "q", head, row, row + 256);
        factor.push_back(seconds(t0) * 1e6);
        if (!q) return q.error();
    }
    out.cold = summarize(cold);
    out.coldCpu = summarize(coldCpu);
    out.warm = summarize(warm);
    out.factorCold = summarize(factor);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Config c;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string key = argv[i], value = argv[i + 1];
        if (key == "--n")
            c.n = std::stoll(value);
        else if (key == "--layers")
            c.layers = std::stoi(value);
        else if (key == "--heads")
            c.heads = std::stoi(value);
        else if (key == "--dim")
            c.dim = std::stoi(value);
        else if (key == "--reads")
            c.reads = std::stoi(value);
        else if (key == "--dir")
            c.dir = value;
        else if (key == "--only")
            c.only = value;
        else if (key == "--keep")
            c.keep = value == "1";
        else {
            std::fprintf(stderr, "unknown option %s\n", key.c_str());
            return 2;
        }
    }
    PyramidLevels levels = defaultPyramidLevels(c.n);
    std::printf(
        "N = %lld, %d layers x %d heads, head_dim %d, pyramid levels %d..%d "
        "(attention + decay, max + mean), %d random reads\n\n",
        static_cast<long long>(c.n), c.layers, c.heads, c.dim, levels.finest, levels.coarsest,
        c.reads);
    HeadData data = makeHeadData(c, levels);
    std::printf(
        "| compression | write MB/s wall (cpu) | raw MB | file MB | ratio | open ms | tile cold "
        "us: mean / p50 / p99 wall, mean cpu | tile cached us | q 256 rows cold us |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (Compression compression :
         {Compression::Deflate, Compression::None, Compression::Zstd, Compression::Lz4}) {
        if (!c.only.empty() && c.only != toString(compression)) continue;
        auto path = std::filesystem::path(c.dir) / ("gatescope-bench-" + std::to_string(getpid()) +
                                                    "-" + toString(compression) + ".h5");
        auto written = writeTrace(c, data, levels, path, compression);
        if (!written) {
            std::fprintf(stderr, "%s\n", written.error().describe().c_str());
            return 1;
        }
        auto read = readTrace(c, levels, path);
        if (!read) {
            std::fprintf(stderr, "%s\n", read.error().describe().c_str());
            return 1;
        }
        if (!c.keep) std::filesystem::remove(path);
        const WriteResult& w = *written;
        const ReadResult& r = *read;
        std::printf(
            "| %s | %.0f (%.0f) | %.0f | %.0f | %.2f | %.1f | %.0f / %.0f / %.0f, %.0f | %.1f | "
            "%.0f |\n",
            toString(compression), w.rawBytes / w.seconds / 1e6, w.rawBytes / w.cpu / 1e6,
            w.rawBytes / 1e6, w.fileBytes / 1e6, w.rawBytes / w.fileBytes, r.openMs, r.cold.mean,
            r.cold.p50, r.cold.p99, r.coldCpu.mean, r.warm.mean, r.factorCold.mean);
        std::fflush(stdout);
    }
    return 0;
}
