// The writer half of a GPU trace, without a GPU (not a test): what LayerRecorder::writeStaged
// hands the TraceWriter for each layer of the 760M-size FoX at N tokens (bf16 q and k of every
// head, lse, c and gates in float32, the attention pyramid's levels of every head, max and mean),
// from memory, each layer's writes held and written together as the GPU pipeline does; timed to
// the commit. Repeats alternate with a variant (--variants) so that two settings compare in one
// run on one machine. The pyramid cells are those of the random 760M checkpoint (its forget gates
// near 0.5 leave only the diagonal's cells above zero); --dense fills them like a trained model's
// (trace_io_bench's attention-like maps) instead. Results go to docs/benchmarks.md.
//
// Usage: trace_writer_bench [--n 16384] [--layers 24] [--heads 24] [--dim 64] [--dir .]
//                           [--compression deflate] [--threads 0] [--repeats 3] [--dense 0]
//                           [--variants held,unheld,unflushed,all-levels]
// all-levels is held with every pyramid level stored (format v3's layout; v4 pools some).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "data/common/compression.h"
#include "data/trace/manifest.h"
#include "data/trace/trace_writer.h"

using namespace gatescope;
using namespace gatescope::data;
using Clock = std::chrono::steady_clock;

namespace {

struct Config {
    int64_t n = 16384;
    int layers = 24;
    int heads = 24;
    int dim = 64;
    std::string dir = ".";
    std::string compression = "deflate";
    int threads = 0;
    int repeats = 3;
    bool dense = false;
    std::vector<std::string> variants{"held", "unheld"};
};

/// One layer's arrays, reused for every layer (each chunk is encoded on its own).
struct LayerData {
    std::vector<uint16_t> q, k;              ///< bf16 bits [H, N, D]
    std::vector<float> lse, c, gates;        ///< [H, N]
    std::vector<std::vector<float>> levels;  ///< per level, [H, S, S]
};

uint16_t bf16(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

LayerData makeLayer(const Config& c, PyramidLevels levels) {
    std::mt19937 rng(3);
    std::normal_distribution<float> normal;
    LayerData d;
    const auto values = static_cast<size_t>(c.heads * c.n);
    for (auto* f : {&d.q, &d.k}) {
        f->resize(values * static_cast<size_t>(c.dim));
        for (auto& x : *f)
            x = bf16(normal(rng));
    }
    d.lse.resize(values);
    d.c.resize(values);
    d.gates.resize(values);
    for (int h = 0; h < c.heads; ++h) {
        float cumsum = 0;
        for (int64_t i = 0; i < c.n; ++i) {
            const size_t at = static_cast<size_t>(h * c.n + i);
            d.gates[at] = -0.69f + 0.05f * normal(rng);
            cumsum += d.gates[at];
            d.c[at] = cumsum;
            d.lse[at] = std::log(static_cast<float>(i + 1)) + 0.5f * normal(rng);
        }
    }
    for (int level = levels.finest; level <= levels.coarsest; ++level) {
        const int64_t side = levelSide(c.n, level);
        const double cell = std::ldexp(1.0, level);
        auto& cells = d.levels.emplace_back(static_cast<size_t>(c.heads * side * side), 0.0f);
        for (int h = 0; h < c.heads; ++h)
            for (int64_t r = 0; r < side; ++r)
                for (int64_t col = c.dense ? 0 : std::max<int64_t>(0, r - 1); col <= r; ++col) {
                    const double dist = (r - col) * cell;
                    const double value = c.dense
                                             ? 0.5 * std::exp(-dist / 64.0) + 1.0 / (r * cell + 1)
                                             : std::fabs(normal(rng)) * 0.1;
                    cells[static_cast<size_t>((h * side + r) * side + col)] =
                        static_cast<float>(value * (1.0 + 0.01 * normal(rng)));
                }
    }
    return d;
}

Status writeLayer(TraceWriter& w, const Config& c, const LayerData& d, PyramidLevels levels,
                  int layer) {
    const int64_t h = c.heads, n = c.n;
    if (auto rc = w.writeLayer(layer, {c.heads, c.heads, c.dim, c.dim, 1, "additive_decay", {}});
        !rc)
        return rc;
    if (auto rc = w.writeFactorBf16(layer, "q", d.q.data(), {h, n, c.dim}); !rc) return rc;
    if (auto rc = w.writeFactorBf16(layer, "k", d.k.data(), {h, n, c.dim}); !rc) return rc;
    if (auto rc = w.writeFactor(layer, "lse", d.lse.data(), {h, n}); !rc) return rc;
    if (auto rc = w.writeFactor(layer, "log_decay_cumsum", d.c.data(), {h, n}); !rc) return rc;
    if (auto rc = w.writeGates(layer, d.gates.data(), c.heads, n, 1); !rc) return rc;
    if (auto rc = w.createPyramid(layer, "attention", levels, c.heads); !rc) return rc;
    for (int i = 0; i < levels.count(); ++i)
        for (Pool pool : {Pool::Max, Pool::Mean})
            if (auto rc = w.writePyramidLevel(layer, "attention", pool, levels.finest + i, 0,
                                              d.levels[static_cast<size_t>(i)].data(), c.heads);
                !rc)
                return rc;
    return Ok{};
}

/// One whole trace: seconds to the commit, or -1 (the error printed).
double writeTrace(const Config& c, const LayerData& d, PyramidLevels levels,
                  const std::string& variant, const std::filesystem::path& path) {
    TraceWriterOptions options;
    options.compression = *parseCompression(c.compression);
    options.encodeThreads = c.threads;
    options.flushWhileWriting = variant != "unflushed";
    options.deriveCoarseLevels = variant != "all-levels";
    const bool held = variant != "unheld";
    TokenTable tokens;
    tokens.ids.assign(static_cast<size_t>(c.n), 1);
    tokens.text.assign(static_cast<size_t>(c.n), "");
    for (int64_t i = 0; i < c.n; ++i)
        tokens.byteOffsets.push_back({i, i});
    PerTokenResults rows;
    rows.loss.assign(static_cast<size_t>(c.n), 0.0f);
    rows.targetRank.assign(static_cast<size_t>(c.n), 0);
    rows.entropy.assign(static_cast<size_t>(c.n), 0.0f);
    Manifest manifest;
    manifest.modelType = "fox";
    const auto start = Clock::now();
    auto created = TraceWriter::create(path, options);
    Status rc = created ? Status(Ok{}) : Status(created.error());
    if (rc) rc = (*created)->writeTokens(tokens);
    for (int l = 0; rc && l < c.layers; ++l) {
        if (held) (*created)->holdWrites();
        rc = writeLayer(**created, c, d, levels, l);
        if (held) {
            auto written = (*created)->writeHeld();
            if (rc) rc = written;
        }
    }
    if (rc) rc = (*created)->writeManifest(manifest.toJson());
    if (rc) rc = (*created)->writePerToken(rows);
    if (rc) rc = (*created)->commit();
    if (!rc) {
        std::fprintf(stderr, "%s\n", rc.error().describe().c_str());
        return -1;
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    Config c;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--n") {
            c.n = std::stoll(value);
        } else if (key == "--layers") {
            c.layers = std::stoi(value);
        } else if (key == "--heads") {
            c.heads = std::stoi(value);
        } else if (key == "--dim") {
            c.dim = std::stoi(value);
        } else if (key == "--dir") {
            c.dir = value;
        } else if (key == "--compression") {
            c.compression = value;
        } else if (key == "--threads") {
            c.threads = std::stoi(value);
        } else if (key == "--repeats") {
            c.repeats = std::stoi(value);
        } else if (key == "--dense") {
            c.dense = value == "1";
        } else if (key == "--variants") {
            c.variants.clear();
            std::stringstream list(value);
            for (std::string item; std::getline(list, item, ',');)
                c.variants.push_back(item);
        } else {
            std::fprintf(stderr, "unknown option %s\n", key.c_str());
            return 2;
        }
    }
    if (!parseCompression(c.compression)) {
        std::fprintf(stderr, "unknown compression %s\n", c.compression.c_str());
        return 2;
    }
    for (const auto& v : c.variants)
        if (v != "held" && v != "unheld" && v != "unflushed" && v != "all-levels") {
            std::fprintf(stderr, "unknown variant %s (held, unheld, unflushed, all-levels)\n",
                         v.c_str());
            return 2;
        }
    const PyramidLevels levels = defaultPyramidLevels(c.n, 1024);
    const LayerData data = makeLayer(c, levels);
    std::printf("N = %lld, %d layers x %d heads, head_dim %d, attention levels %d..%d (%s), %s\n",
                static_cast<long long>(c.n), c.layers, c.heads, c.dim, levels.finest,
                levels.coarsest, c.dense ? "dense" : "diagonal only", c.compression.c_str());
    const auto path = std::filesystem::path(c.dir) / "trace-writer-bench.h5";
    for (int r = 0; r < c.repeats; ++r)
        for (const auto& variant : c.variants) {
            std::error_code ec;
            std::filesystem::remove(path, ec);  // a rename over a large file costs its unlink
            const double s = writeTrace(c, data, levels, variant, path);
            if (s < 0) return 1;
            std::printf("%-9s %.3f s  %.3f GB\n", variant.c_str(), s,
                        std::filesystem::file_size(path) / 1e9);
            std::fflush(stdout);
        }
    std::error_code ec;
    std::filesystem::remove(path, ec);
    return 0;
}
