// Pyramid storage: only causal tiles are ever allocated on disk, unwritten and non-causal tiles
// read as zeros, edge tiles keep only cells inside S.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

TEST(PyramidStore, OnlyWrittenCausalTilesAreAllocated) {
    const int64_t n = 1500;  // level 0: S = 1500, 6 x 6 tiles, the last 220 cells wide
    const int heads = 2;
    testing::TempDir dir;
    auto s = testing::makeSample(n, 77);
    auto path = dir / "pyr.h5";
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> dist(0.01f, 1.0f);
    // Tiles written (head 1 only): a few causal ones, including the corner edge tile.
    std::set<std::pair<int64_t, int64_t>> written = {{0, 0}, {2, 1}, {5, 5}, {5, 0}};
    std::map<std::pair<int64_t, int64_t>, std::vector<float>> values;
    {
        // Arbitrary cells at every level, stored as written (not pooled from level 0).
        TraceWriterOptions options;
        options.deriveCoarseLevels = false;
        auto w = TraceWriter::create(path, options);
        ASSERT_TRUE(w);
        ASSERT_TRUE((*w)->writeManifest(s.manifest));
        ASSERT_TRUE((*w)->writeTokens(s.tokens));
        ASSERT_TRUE((*w)->writePerToken(s.perToken));
        // extras left null: the writer stores it as an empty object.
        ASSERT_TRUE((*w)->writeLayer(0, LayerHeader{heads, heads, 4, 4, 1, "power", {}}));
        ASSERT_TRUE((*w)->createPyramid(0, "attention", {0, 2}, heads));
        for (auto [tr, tc] : written) {
            auto& tile = values[{tr, tc}];
            tile.resize(kTileSide * kTileSide);
            for (auto& v : tile)
                v = dist(rng);
            ASSERT_TRUE(
                (*w)->writePyramidTile(0, "attention", Pool::Mean, 0, 1, tr, tc, tile.data()));
        }
        std::vector<float> tile(kTileSide * kTileSide, 1.0f);
        auto nonCausal =
            (*w)->writePyramidTile(0, "attention", Pool::Mean, 0, 1, 1, 2, tile.data());
        ASSERT_FALSE(nonCausal);
        EXPECT_EQ(nonCausal.error().kind, ErrorKind::Usage);
        ASSERT_TRUE((*w)->commit());  // the refused tile did not end the writer
    }
    {
        auto file = h5::File::openReadOnly(path.string(), 0);
        ASSERT_TRUE(file);
        auto root = h5::Group::root(*file);
        auto mean = h5::Dataset::open(*root, "layers/000/pyramid/attention/mean/0");
        ASSERT_TRUE(mean) << mean.error().describe();
        EXPECT_EQ(*mean->allocatedChunks(), written.size());
        EXPECT_EQ(*mean->dims(), (h5::Dims{heads, 1500, 1500}));
        // Compressed random floats stay near 4 bytes a cell: far below the 2 x 1500^2 full array.
        EXPECT_LT(*mean->storageSize(), written.size() * kTileSide * kTileSide * 4 + 4096);
        for (std::string other :
             {"layers/000/pyramid/attention/max/0", "layers/000/pyramid/attention/mean/2"}) {
            auto ds = h5::Dataset::open(*root, other);
            ASSERT_TRUE(ds);
            EXPECT_EQ(*ds->allocatedChunks(), 0u) << other;
            EXPECT_EQ(*ds->storageSize(), 0u) << other;
        }
    }
    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    int64_t tiles = tilesPerSide(n, 0);
    ASSERT_EQ(tiles, 6);
    for (int h = 0; h < heads; ++h)
        for (int64_t tr = 0; tr < tiles; ++tr)
            for (int64_t tc = 0; tc < tiles; ++tc) {
                auto tile = (*reader)->pyramidTile(0, "attention", Pool::Mean, 0, h, tr, tc);
                ASSERT_TRUE(tile) << tile.error().describe();
                EXPECT_EQ(tile->rows, std::min<int64_t>(256, n - tr * 256));
                EXPECT_EQ(tile->cols, std::min<int64_t>(256, n - tc * 256));
                auto it = values.find({tr, tc});
                bool stored = h == 1 && it != values.end();
                for (int64_t r = 0; r < kTileSide; ++r)
                    for (int64_t c = 0; c < kTileSide; ++c) {
                        bool inside = tr * 256 + r < n && tc * 256 + c < n;
                        bool causal = tc * 256 + c <= tr * 256 + r;
                        float want = stored && inside && causal ? it->second[r * kTileSide + c] : 0;
                        ASSERT_EQ(tile->at(r, c), want)
                            << h << " " << tr << "," << tc << " " << r << "," << c;
                    }
            }
}

/// A writer of `path` with the sample's tokens and one power layer of `heads` heads whose
/// attention pyramid has levels 0 and 3, its tiles encoded on 3 threads.
std::unique_ptr<TraceWriter> levelWriter(const std::filesystem::path& path,
                                         const testing::Sample& s, Compression compression,
                                         int heads) {
    TraceWriterOptions options;
    options.compression = compression;
    options.encodeThreads = 3;
    options.deriveCoarseLevels = false;  // arbitrary cells at both levels, stored as written
    auto w = TraceWriter::create(path, options);
    EXPECT_TRUE(w);
    if (!w) return nullptr;
    const bool ok = (*w)->writeManifest(s.manifest) && (*w)->writeTokens(s.tokens) &&
                    (*w)->writePerToken(s.perToken) &&
                    (*w)->writeLayer(0, LayerHeader{heads, heads, 4, 4, 1, "power", {}}) &&
                    (*w)->createPyramid(0, "attention", {0, 3}, heads);
    EXPECT_TRUE(ok);
    return ok ? std::move(*w) : nullptr;
}

// writePyramidLevel: a whole level from one dense S x S array, its tiles compressed on several
// threads, reads back as the causal cells of that array (zeros above the diagonal), for levels
// smaller than one tile and levels whose last tile is partial, in every compression.
TEST(PyramidStore, WholeLevelsReadBackAsTheirCausalCells) {
    const int64_t n = 1300;  // level 0: S = 1300 (6 tiles, the last 20 wide); level 3: S = 163
    testing::TempDir dir;
    auto s = testing::makeSample(n, 5);
    std::mt19937 rng(21);
    std::normal_distribution<float> normal;
    for (auto compression : {Compression::Deflate, Compression::None, Compression::Zstd}) {
        auto path = dir / (std::string(toString(compression)) + ".h5");
        std::map<int, std::vector<float>> levels;
        {
            auto w = levelWriter(path, s, compression, 2);
            ASSERT_TRUE(w);
            for (int level : {0, 3}) {
                const int64_t side = levelSide(n, level);
                auto& cells = levels[level];
                cells.resize(side * side);
                for (auto& v : cells)
                    v = normal(rng);
                ASSERT_TRUE(
                    w->writePyramidLevel(0, "attention", Pool::Max, level, 1, cells.data()));
            }
            auto badHead = w->writePyramidLevel(0, "attention", Pool::Max, 0, 2, levels[0].data());
            ASSERT_FALSE(badHead);
            EXPECT_EQ(badHead.error().kind, ErrorKind::Usage);
            ASSERT_TRUE(w->commit());
        }
        auto reader = TraceReader::open(path);
        ASSERT_TRUE(reader) << reader.error().describe();
        for (auto& [level, cells] : levels) {
            const int64_t side = levelSide(n, level), tiles = tilesPerSide(n, level);
            for (int64_t tr = 0; tr < tiles; ++tr)
                for (int64_t tc = 0; tc < tiles; ++tc) {
                    auto tile = (*reader)->pyramidTile(0, "attention", Pool::Max, level, 1, tr, tc);
                    ASSERT_TRUE(tile) << tile.error().describe();
                    for (int64_t r = 0; r < tile->rows; ++r)
                        for (int64_t c = 0; c < tile->cols; ++c) {
                            const int64_t row = tr * kTileSide + r, col = tc * kTileSide + c;
                            const float want = col <= row ? cells[row * side + col] : 0.0f;
                            ASSERT_EQ(tile->at(r, c), want)
                                << toString(compression) << " level " << level << " cell " << row
                                << "," << col;
                        }
                }
        }
    }
}

// writePyramidLevel with a head count: several heads' levels in one call (as the GPU pipeline
// writes them, [heads, S, S] head after head) read back head by head as their own cells; a count
// that runs past the pyramid's heads is refused.
TEST(PyramidStore, SeveralHeadsInOneCallReadBackAsTheirOwnLevels) {
    const int64_t n = 1300;
    const int heads = 3;
    testing::TempDir dir;
    auto s = testing::makeSample(n, 5);
    std::mt19937 rng(22);
    std::normal_distribution<float> normal;
    for (auto compression : {Compression::Deflate, Compression::None}) {
        auto path = dir / (std::string(toString(compression)) + "-heads.h5");
        std::map<int, std::vector<float>> levels;  // level -> [heads, S, S]
        {
            auto w = levelWriter(path, s, compression, 4);
            ASSERT_TRUE(w);
            for (int level : {0, 3}) {
                const int64_t side = levelSide(n, level);
                auto& cells = levels[level];
                cells.resize(heads * side * side);
                for (auto& v : cells)
                    v = normal(rng);
                // Heads 1-3 of 4 in one call.
                ASSERT_TRUE(w->writePyramidLevel(0, "attention", Pool::Mean, level, 1, cells.data(),
                                                 heads));
            }
            auto past =
                w->writePyramidLevel(0, "attention", Pool::Mean, 0, 2, levels[0].data(), heads);
            ASSERT_FALSE(past);
            EXPECT_EQ(past.error().kind, ErrorKind::Usage);
            ASSERT_TRUE(w->commit());
        }
        auto reader = TraceReader::open(path);
        ASSERT_TRUE(reader) << reader.error().describe();
        for (auto& [level, cells] : levels) {
            const int64_t side = levelSide(n, level), tiles = tilesPerSide(n, level);
            for (int h = 0; h < heads; ++h)
                for (int64_t tr = 0; tr < tiles; ++tr)
                    for (int64_t tc = 0; tc <= tr; ++tc) {
                        auto tile = (*reader)->pyramidTile(0, "attention", Pool::Mean, level, 1 + h,
                                                           tr, tc);
                        ASSERT_TRUE(tile) << tile.error().describe();
                        for (int64_t r = 0; r < tile->rows; ++r)
                            for (int64_t c = 0; c < tile->cols; ++c) {
                                const int64_t row = tr * kTileSide + r, col = tc * kTileSide + c;
                                const float want =
                                    col <= row ? cells[(h * side + row) * side + col] : 0.0f;
                                ASSERT_EQ(tile->at(r, c), want)
                                    << toString(compression) << " level " << level << " head "
                                    << 1 + h << " cell " << row << "," << col;
                            }
                    }
        }
    }
}

}  // namespace
}  // namespace gatescope::data
