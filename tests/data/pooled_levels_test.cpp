// Format v4: a pyramid stores every third level from its finest; the reader pools the others from
// the nearest stored level below. The
// oracle is the definition, straight from a random token-level map: a level-l cell's max and mean
// over its (clipped) 2^l x 2^l token pairs, in float64, never from another level. Sizes are off
// the 256-cell tile and the cell grid; tiles are written whole-level and tile by tile, held and
// not, compressed and not.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <iostream>
#include <random>

#include "data/h5/library.h"
#include "data/trace/trace_reader.h"
#include "data/trace/trace_schema.h"
#include "hostile_edits.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

struct Case {
    int64_t n;
    PyramidLevels levels;
    Compression compression;
    bool wholeLevels;
    bool held;
};

/// An attention-like causal map: zero above the diagonal, a few exact zeros and tiny values
/// among heavy-tailed weights.
std::vector<float> tokenMap(int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<float> map(static_cast<size_t>(n * n), 0.0f);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) {
            const double x = u(rng);
            map[static_cast<size_t>(i * n + j)] =
                x < 0.05 ? 0.0f : static_cast<float>(std::exp(-40.0 * u(rng)) * x);
        }
    return map;
}

/// Level `level` of the map by the definition: [S, S] cells, max or mean over token pairs.
std::vector<double> levelByDefinition(const std::vector<float>& map, int64_t n, int level,
                                      Pool pool) {
    const int64_t side = levelSide(n, level);
    std::vector<double> cells(static_cast<size_t>(side * side), 0.0);
    for (int64_t r = 0; r < side; ++r)
        for (int64_t c = 0; c < side; ++c) {
            const int64_t i0 = r << level, i1 = std::min(n, (r + 1) << level);
            const int64_t j0 = c << level, j1 = std::min(n, (c + 1) << level);
            double sum = 0, max = 0;
            for (int64_t i = i0; i < i1; ++i)
                for (int64_t j = j0; j < j1; ++j) {
                    sum += map[static_cast<size_t>(i * n + j)];
                    max = std::max<double>(max, map[static_cast<size_t>(i * n + j)]);
                }
            cells[static_cast<size_t>(r * side + c)] =
                pool == Pool::Max ? max : sum / double((i1 - i0) * (j1 - j0));
        }
    return cells;
}

class PooledLevels : public ::testing::TestWithParam<Case> {};

TEST_P(PooledLevels, CoarseTilesAreTheDefinitionOfTheMap) {
    const Case& param = GetParam();
    const int64_t n = param.n;
    const int heads = 2;
    testing::Sample sample = testing::makeSample(n, 5);
    testing::TempDir dir;
    const auto path = dir / "pooled.h5";
    std::vector<std::vector<float>> maps;
    for (int h = 0; h < heads; ++h)
        maps.push_back(tokenMap(n, 100 + h));
    {
        TraceWriterOptions options;
        options.compression = param.compression;
        auto created = TraceWriter::create(path, options);
        ASSERT_TRUE(created) << created.error().describe();
        TraceWriter& w = **created;
        ASSERT_TRUE(w.writeManifest(sample.manifest));
        ASSERT_TRUE(w.writeTokens(sample.tokens));
        LayerHeader header = sample.layers[0].header;
        header.nHeads = header.nKvHeads = heads;
        ASSERT_TRUE(w.writeLayer(0, header));
        if (param.held) w.holdWrites();
        ASSERT_TRUE(w.createPyramid(0, "attention", param.levels, heads));
        // Every level handed over, as the builders do: only the finest is kept.
        std::vector<float> tile(kTileSide * kTileSide);
        std::vector<std::vector<float>> handed;  // held writes read them until writeHeld
        for (int level = param.levels.finest; level <= param.levels.coarsest; ++level) {
            EXPECT_EQ(w.storesPyramidLevel(0, "attention", level),
                      (level - param.levels.finest) % kPoolStride == 0);
            const int64_t side = levelSide(n, level), tiles = tilesPerSide(n, level);
            for (Pool pool : {Pool::Max, Pool::Mean})
                for (int h = 0; h < heads; ++h) {
                    const auto cells = levelByDefinition(maps[h], n, level, pool);
                    const auto& level32 = handed.emplace_back(cells.begin(), cells.end());
                    if (param.wholeLevels) {
                        ASSERT_TRUE(
                            w.writePyramidLevel(0, "attention", pool, level, h, level32.data()));
                        continue;
                    }
                    for (int64_t tr = 0; tr < tiles; ++tr)
                        for (int64_t tc = 0; tc <= tr; ++tc) {
                            for (int64_t r = 0; r < kTileSide; ++r)
                                for (int64_t c = 0; c < kTileSide; ++c) {
                                    const int64_t y = tr * kTileSide + r, x = tc * kTileSide + c;
                                    tile[static_cast<size_t>(r * kTileSide + c)] =
                                        y < side && x < side ? level32[y * side + x] : 0.0f;
                                }
                            ASSERT_TRUE(w.writePyramidTile(0, "attention", pool, level, h, tr, tc,
                                                           tile.data()));
                        }
                }
        }
        if (param.held) {
            ASSERT_TRUE(w.writeHeld());
        }
        ASSERT_TRUE(w.writePerToken(sample.perToken));
        auto committed = w.commit();
        ASSERT_TRUE(committed) << committed.error().describe();
    }
    {  // Only every third level from the finest is a dataset.
        auto lock = h5::lockLibrary();
        hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(file, 0);
        for (Pool pool : {Pool::Max, Pool::Mean})
            for (int level = param.levels.finest; level <= param.levels.coarsest; ++level)
                EXPECT_EQ(H5Lexists(file, schema::pyramidPath(0, "attention", pool, level).c_str(),
                                    H5P_DEFAULT) > 0,
                          isStoredLevel(param.levels, level));
        H5Fclose(file);
    }
    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    EXPECT_EQ((*reader)->summary().formatVersion, kFormatVersion);
    const PyramidInfo* info = (*reader)->summary().layer(0)->pyramid("attention");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->stored.front(), param.levels.finest);
    EXPECT_EQ(info->stored.size(), static_cast<size_t>((param.levels.count() + 2) / kPoolStride));
    ASSERT_EQ(info->levels.size(), static_cast<size_t>(param.levels.count()));
    double worst = 0;
    int64_t nonzero = 0;
    for (int level = param.levels.finest + 1; level <= param.levels.coarsest; ++level) {
        if (isStoredLevel(param.levels, level)) continue;
        const int64_t side = levelSide(n, level), tiles = tilesPerSide(n, level);
        for (Pool pool : {Pool::Max, Pool::Mean})
            for (int h = 0; h < heads; ++h) {
                const auto want = levelByDefinition(maps[h], n, level, pool);
                for (int64_t tr = 0; tr < tiles; ++tr)
                    for (int64_t tc = 0; tc < tiles; ++tc) {
                        auto tile = (*reader)->pyramidTile(0, "attention", pool, level, h, tr, tc);
                        ASSERT_TRUE(tile) << tile.error().describe();
                        for (int64_t r = 0; r < kTileSide; ++r)
                            for (int64_t c = 0; c < kTileSide; ++c) {
                                const int64_t y = tr * kTileSide + r, x = tc * kTileSide + c;
                                const double expected =
                                    y < side && x < side && x <= y ? want[y * side + x] : 0.0;
                                const double got = tile->at(r, c);
                                nonzero += expected != 0;
                                if (pool == Pool::Max) {
                                    ASSERT_EQ(got, static_cast<float>(expected))
                                        << "level " << level << " cell " << y << "," << x;
                                } else {
                                    const double rel =
                                        std::abs(got - expected) / (expected + 1e-300);
                                    worst = std::max(worst, rel);
                                    // Stored finest means carry float32 rounding; so does the
                                    // pooled one.
                                    ASSERT_LE(rel, 3e-7)
                                        << "level " << level << " cell " << y << "," << x;
                                }
                            }
                    }
            }
    }
    EXPECT_GT(nonzero, 100);
    std::printf(
        "[ pooled ] N %lld levels %d..%d: mean cells within %.3g relative of the definition\n",
        static_cast<long long>(n), param.levels.finest, param.levels.coarsest, worst);
}

INSTANTIATE_TEST_SUITE_P(Sizes, PooledLevels,
                         ::testing::Values(Case{257, {0, 2}, Compression::None, true, false},
                                           Case{777, {0, 3}, Compression::Deflate, false, false},
                                           Case{1000, {1, 3}, Compression::Deflate, true, true},
                                           Case{1300, {1, 4}, Compression::None, false, true},
                                           Case{1300, {0, 5}, Compression::Deflate, true, false}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             return "N" + std::to_string(info.param.n) + "_levels" +
                                    std::to_string(info.param.levels.finest) + "to" +
                                    std::to_string(info.param.levels.coarsest) +
                                    (info.param.wholeLevels ? "_levels" : "_tiles") +
                                    (info.param.held ? "_held" : "");
                         });

/// A written v4 trace whose pool groups' attributes are then edited with the raw HDF5 API.
class PooledLevelsBadInput : public ::testing::Test {
protected:
    void SetUp() override {
        sample = testing::makeSample(600, 9);
        TraceWriterOptions options;
        auto created = TraceWriter::create(good, options);
        ASSERT_TRUE(created) << created.error().describe();
        TraceWriter& w = **created;
        ASSERT_TRUE(w.writeManifest(sample.manifest));
        ASSERT_TRUE(w.writeTokens(sample.tokens));
        ASSERT_TRUE(w.writeLayer(0, sample.layers[0].header));
        ASSERT_TRUE(w.createPyramid(0, "attention", {0, 2}, sample.layers[0].header.nHeads));
        ASSERT_TRUE(w.writePerToken(sample.perToken));
        ASSERT_TRUE(w.commit());
    }

    /// A copy whose `pool` group's coarsest_level is `value` (-1: removed).
    std::filesystem::path edited(const std::string& name, const char* pool, int64_t value) {
        const auto path = dir / name;
        std::filesystem::copy_file(good, path);
        test::editTrace(path, [&](hid_t file) {
            const std::string group = std::string("/layers/000/pyramid/attention/") + pool;
            if (value == -1)
                EXPECT_GE(
                    H5Adelete_by_name(file, group.c_str(), schema::kCoarsestLevel, H5P_DEFAULT), 0);
            else
                test::setIntAttribute(file, group.c_str(), schema::kCoarsestLevel, value);
        });
        return path;
    }

    testing::TempDir dir;
    testing::Sample sample;
    std::filesystem::path good = dir / "good.h5";
};

TEST_F(PooledLevelsBadInput, InconsistentAttributesAreFormatErrorsNamingTheGroup) {
    auto opened = TraceReader::open(good);
    ASSERT_TRUE(opened) << opened.error().describe();
    EXPECT_EQ((*opened)->summary().layer(0)->pyramid("attention")->levels,
              (std::vector<int>{0, 1, 2}));
    struct Bad {
        const char* name;
        const char* pool;
        int64_t coarsest;  // -1: removed
        const char* words;
    };
    for (const Bad& bad : {Bad{"below.h5", "max", -2, "below the stored level"},
                           Bad{"too-deep.h5", "max", 41, "above 40"},
                           Bad{"too-far.h5", "mean", 3, "more than 2 levels below"},
                           Bad{"pools-differ.h5", "mean", 1, "different pyramid levels"},
                           Bad{"no-coarsest.h5", "max", -1, "different pyramid levels"}}) {
        const auto path = edited(bad.name, bad.pool, bad.coarsest);
        auto reader = TraceReader::open(path);
        ASSERT_FALSE(reader) << bad.name;
        const Error& e = reader.error();
        EXPECT_EQ(e.file, path.string()) << bad.name;
        EXPECT_NE(e.object.find("/layers/000/pyramid/attention/"), std::string::npos)
            << e.describe();
        EXPECT_NE(e.describe().find(bad.words), std::string::npos) << e.describe();
        std::cout << "    error: " << e.describe() << "\n";
    }
}

}  // namespace
}  // namespace gatescope::data
