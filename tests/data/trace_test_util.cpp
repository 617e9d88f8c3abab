#include "trace_test_util.h"

#include <fstream>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>

namespace gatescope::data::testing {

std::string readBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json sampleManifest() {
    return {{"checkpoint",
             {{"path", "/models/fox-pro"},
              {"weight_sha256", {{"model.safetensors", std::string(64, 'a')}}}}},
            {"model_type", "forgetting_transformer-project_fox"},
            {"model_config", {{"hidden_size", 128}, {"num_heads", 4}, {"name", "fox ü"}}},
            {"tokenizer", {{"kind", "byte"}, {"sha256", std::string(64, 'b')}}},
            {"input", {{"sha256", std::string(64, 'c')}, {"kind", "text"}}},
            {"gatescope", {{"version", "0.1.0"}, {"git_revision", "abcdef123456"}}},
            {"device", "cpu"},
            {"dtypes", {{"weights", "float32"}, {"compute", "float32"}}},
            {"attention_path", "cpu-reference"},
            {"created_at", "2025-01-01T00:00:00Z"}};
}

namespace {

std::vector<float> randomValues(std::mt19937& rng, size_t count, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> out(count);
    for (auto& v : out) {
        v = dist(rng);
        if (v == 0.0f) v = hi;  // non-zero inputs only
    }
    return out;
}

uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

}  // namespace

Sample makeSample(int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    Sample s;
    s.n = n;
    s.seed = seed;
    s.manifest = sampleManifest();
    const std::vector<std::string> pieces = {
        "h\xc3\xa9", " \xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x99\x82", " the", "\n", "x"};
    std::uniform_int_distribution<int> pick(0, static_cast<int>(pieces.size()) - 1);
    std::uniform_int_distribution<int32_t> id(0, 50000);
    for (int64_t i = 0; i < n; ++i) {
        const std::string& piece = pieces[pick(rng)];
        int64_t start = static_cast<int64_t>(s.tokens.sourceText.size());
        s.tokens.sourceText += piece;
        s.tokens.ids.push_back(id(rng));
        s.tokens.text.push_back(piece);
        s.tokens.byteOffsets.push_back({start, start + static_cast<int64_t>(piece.size())});
    }
    if (n > 2) s.tokens.text[1] = "bad\xff byte";  // a byte-level token that is not UTF-8
    s.perToken.loss = randomValues(rng, n, 0.01f, 9.0f);
    s.perToken.loss[n - 1] = std::nanf("");
    s.perToken.entropy = randomValues(rng, n, 0.01f, 6.0f);
    std::uniform_int_distribution<int32_t> rank(0, 50000);
    for (int64_t i = 0; i < n; ++i)
        s.perToken.targetRank.push_back(i + 1 < n ? rank(rng) : -1);

    for (int l = 0; l < 2; ++l) {
        SampleLayer layer;
        int heads = 3, kv = l == 0 ? 1 : 3, dim = 5, channels = l == 0 ? 1 : 4;
        layer.header = {heads,
                        kv,
                        dim,
                        7,
                        channels,
                        l == 0 ? "additive_decay" : "wall",
                        {{"scale", 0.4472}, {"window", l == 0 ? 0 : 24}}};
        layer.gates = randomValues(rng, heads * n * channels, -3.0f, -1e-3f);
        layer.factors["q"] = {{heads, n, dim}, randomValues(rng, heads * n * dim, -2, 2)};
        layer.factors["k"] = {{kv, n, dim}, randomValues(rng, kv * n * dim, -2, 2)};
        layer.factors["v"] = {{kv, n, 7}, randomValues(rng, kv * n * 7, -2, 2)};
        layer.factors["lse"] = {{heads, n}, randomValues(rng, heads * n, -1, 12)};
        layer.factors["log_decay_cumsum"] = {{heads, n}, randomValues(rng, heads * n, -50, -0.1f)};
        layer.levels = defaultPyramidLevels(n, l == 0 ? 1024 : 256);
        s.layers.push_back(std::move(layer));
    }
    return s;
}

float pyramidValue(const Sample& sample, int layer, const std::string& map, Pool pool, int level,
                   int head, int64_t row, int64_t col) {
    uint64_t key = sample.seed;
    for (uint64_t part :
         {uint64_t(layer), uint64_t(map.size()), uint64_t(map[0]), uint64_t(pool == Pool::Max),
          uint64_t(level), uint64_t(head), uint64_t(row), uint64_t(col)})
        key = mix(key * 31 + part + 1);
    return 0.001f + static_cast<float>(key % 1000003) / 1000003.0f;
}

float expectedPyramidCell(const Sample& sample, int layer, const std::string& map, Pool pool,
                          int level, int head, int64_t row, int64_t col) {
    int64_t side = levelSide(sample.n, level);
    if (row >= side || col >= side || col > row) return 0.0f;
    return pyramidValue(sample, layer, map, pool, level, head, row, col);
}

Status writeSample(const Sample& sample, const std::filesystem::path& path,
                   TraceWriterOptions options, bool holdEachLayer) {
    // The sample's pyramid cells are arbitrary values, not the decay of its c: stored as written
    // (a one-token c is non-increasing, and the writer would derive its decay map).
    options.deriveDecayPyramids = false;
    // Nor are the levels pooled from one another: every level is stored (pooled_levels_test.cpp
    // covers coarse levels pooled by the reader).
    options.deriveCoarseLevels = false;
    auto created = TraceWriter::create(path, options);
    if (!created) return created.error();
    TraceWriter& w = **created;
    if (auto rc = w.writeManifest(sample.manifest); !rc) return rc;
    if (auto rc = w.writeTokens(sample.tokens); !rc) return rc;
    for (size_t l = 0; l < sample.layers.size(); ++l) {
        const SampleLayer& layer = sample.layers[l];
        int li = static_cast<int>(l);
        if (auto rc = w.writeLayer(li, layer.header); !rc) return rc;
        if (holdEachLayer) w.holdWrites();
        if (!layer.gates.empty()) {
            auto rc = w.writeGates(li, layer.gates.data(), layer.header.nHeads, sample.n,
                                   layer.header.nChannels);
            if (!rc) return rc;
        }
        for (const auto& [name, f] : layer.factors)
            if (auto rc = w.writeFactor(li, name, f.values.data(), f.shape); !rc) return rc;
        std::vector<float> tile(kTileSide * kTileSide);
        for (std::string map : {"attention", "decay"}) {
            if (auto rc = w.createPyramid(li, map, layer.levels, layer.header.nHeads); !rc)
                return rc;
            for (int level = layer.levels.finest; level <= layer.levels.coarsest; ++level) {
                int64_t tiles = tilesPerSide(sample.n, level);
                for (Pool pool : {Pool::Max, Pool::Mean})
                    for (int h = 0; h < layer.header.nHeads; ++h)
                        for (int64_t tr = 0; tr < tiles; ++tr)
                            for (int64_t tc = 0; tc <= tr; ++tc) {
                                // Every cell gets a value, even past S and above the diagonal:
                                // the writer must drop those.
                                for (int64_t r = 0; r < kTileSide; ++r)
                                    for (int64_t c = 0; c < kTileSide; ++c)
                                        tile[r * kTileSide + c] =
                                            pyramidValue(sample, li, map, pool, level, h,
                                                         tr * kTileSide + r, tc * kTileSide + c);
                                auto rc = w.writePyramidTile(li, map, pool, level, h, tr, tc,
                                                             tile.data());
                                if (!rc) return rc;
                            }
            }
        }
        const bool last = l + 1 == sample.layers.size();
        if (holdEachLayer && !last)
            if (auto rc = w.writeHeld(); !rc) return rc;
    }
    if (auto rc = w.writePerToken(sample.perToken); !rc) return rc;
    return w.commit();
}

std::string expectedStoredText(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (static_cast<unsigned char>(text[i]) == 0xff)
            out += "\xef\xbf\xbd";
        else
            out += text[i];
    }
    return out;
}

}  // namespace gatescope::data::testing
