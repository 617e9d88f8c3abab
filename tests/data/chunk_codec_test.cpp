// Chunks compressed outside HDF5 (data/h5/chunk_codec.h, chunk_writer.h): each encoding gives
// byte for byte what HDF5's own filter pipeline stores for the same chunk (so any HDF5 reader
// decodes it), and chunks written in parallel read back through HDF5 as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <random>

#include "data/h5/chunk_writer.h"
#include "data/h5/file.h"
#include "trace_test_util.h"

namespace gatescope::data::h5 {
namespace {

constexpr hsize_t kRows = 96, kCols = 160;  // one chunk, not a power of two

/// A smooth signal plus noise (compresses), or uniform random bits (grow under deflate).
std::vector<float> chunkData(bool compressible, unsigned seed, hsize_t count = kRows * kCols) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.0f, 0.01f);
    std::uniform_int_distribution<uint32_t> bits;
    std::vector<float> out(count);
    for (hsize_t i = 0; i < out.size(); ++i) {
        if (compressible) {
            out[i] = std::sin(static_cast<float>(i) * 0.002f) + noise(rng);
        } else {
            uint32_t word = bits(rng);  // NaNs too: memory and file types match, nothing converts
            std::memcpy(&out[i], &word, sizeof word);
        }
    }
    return out;
}

/// A chunk's elements as stored: `values` in float32, or (half) the upper 16 bits of each as
/// float16 bit patterns, kept in `halves`.
struct ChunkInput {
    Type type;
    const void* data = nullptr;
    size_t elementSize = 4;
    size_t bytes = 0;
};
ChunkInput chunkInput(const std::vector<float>& values, bool half, std::vector<uint16_t>& halves) {
    if (!half) return {Type::nativeFloat(), values.data(), 4, values.size() * 4};
    halves.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        std::memcpy(&halves[i], reinterpret_cast<const char*>(&values[i]) + 2, 2);
    return {Type::float16(), halves.data(), 2, values.size() * 2};
}

struct StoredChunk {
    std::vector<unsigned char> bytes;
    uint32_t mask = 0;
};

/// What HDF5's filter pipeline stores for `data` written as one chunk with H5Dwrite.
StoredChunk storedByHdf5(const std::filesystem::path& path, Compression compression, int level,
                         const Type& type, const void* data, hsize_t rows = kRows,
                         hsize_t cols = kCols) {
    auto file = File::create(path.string()).value();
    auto root = Group::root(file).value();
    auto dcpl = PropertyList::chunkedDataset({rows, cols}, compression, level, type, {});
    auto dataset = Dataset::create(root, "d", type, {rows, cols}, *dcpl).value();
    EXPECT_TRUE(dataset.write(type, data));
    auto lock = lockLibrary();
    hsize_t offset[2] = {0, 0}, size = 0;
    EXPECT_GE(H5Dget_chunk_storage_size(dataset.id(), offset, &size), 0);
    StoredChunk stored;
    stored.bytes.resize(size);
    EXPECT_GE(H5Dread_chunk(dataset.id(), H5P_DEFAULT, offset, &stored.mask, stored.bytes.data()),
              0);
    return stored;
}

TEST(ChunkCodec, EncodesExactlyAsHdf5sFilterPipeline) {
    testing::TempDir dir;
    int cases = 0;
    for (auto compression :
         {Compression::None, Compression::Deflate, Compression::Zstd, Compression::Lz4}) {
        for (bool compressible : {true, false}) {
            for (bool half : {false, true}) {
                const auto values = chunkData(compressible, 7 + cases);
                std::vector<uint16_t> halves;
                const ChunkInput in = chunkInput(values, half, halves);
                const int level = compression == Compression::Zstd ? 3 : 5;
                const std::string what = std::string(toString(compression)) +
                                         (compressible ? " smooth" : " random") +
                                         (half ? " f16" : " f32");
                auto hdf5 = storedByHdf5(dir / ("c" + std::to_string(cases++) + ".h5"), compression,
                                         level, in.type, in.data);
                auto ours = encodeChunk(in.data, in.bytes, {compression, level, in.elementSize});
                ASSERT_TRUE(ours) << what;
                EXPECT_EQ(hdf5.mask, 0u) << what;
                EXPECT_EQ(*ours, hdf5.bytes) << what;
                // Random bits grow under deflate, and HDF5 1.10 still stores the stream (no
                // filter is skipped): the random cases check exactly that.
                if (compression == Compression::Deflate && !compressible) {
                    EXPECT_GT(hdf5.bytes.size(), in.bytes) << what;
                }
            }
        }
    }
}

// The shuffle runs 16 elements a step (SSSE3) and the rest one by one: chunks of 1073 elements
// (16 x 67 + 1) and 7 elements check both parts against HDF5's own shuffle, byte for byte.
TEST(ChunkCodec, ShuffleOfAnyLengthIsHdf5s) {
    testing::TempDir dir;
    int cases = 0;
    for (auto [rows, cols] : {std::pair<hsize_t, hsize_t>{37, 29}, {7, 1}}) {
        for (bool half : {false, true}) {
            const auto values = chunkData(true, 3 + cases, rows * cols);
            std::vector<uint16_t> halves;
            const ChunkInput in = chunkInput(values, half, halves);
            auto hdf5 = storedByHdf5(dir / ("s" + std::to_string(cases++) + ".h5"),
                                     Compression::Deflate, 6, in.type, in.data, rows, cols);
            auto ours = encodeChunk(in.data, in.bytes, {Compression::Deflate, 6, in.elementSize});
            ASSERT_TRUE(ours);
            EXPECT_EQ(*ours, hdf5.bytes) << rows << " x " << cols << (half ? " f16" : " f32");
        }
    }
}

// Where CMake found ISA-L the codec takes its path (a dropped definition would fall back to
// zlib, 10x slower, without a word): its level-1 stream is then not zlib's, yet HDF5 reads it
// (ChunkWriter.ParallelChunksReadBackThroughHdf5 reads level-1 chunks back).
TEST(ChunkCodec, DeflateLevelOneGoesThroughIsalWhereFound) {
    EXPECT_EQ(deflatesThroughIsal(), GATESCOPE_ISAL_FOUND != 0);
    testing::TempDir dir;
    const auto values = chunkData(true, 5);
    std::vector<uint16_t> halves;
    const ChunkInput in = chunkInput(values, false, halves);
    auto zlib = storedByHdf5(dir / "z.h5", Compression::Deflate, 1, in.type, in.data);
    auto ours = encodeChunk(in.data, in.bytes, {Compression::Deflate, 1, in.elementSize});
    ASSERT_TRUE(ours);
    if (deflatesThroughIsal())
        EXPECT_NE(*ours, zlib.bytes);
    else
        EXPECT_EQ(*ours, zlib.bytes);
}

TEST(ChunkWriter, ParallelChunksReadBackThroughHdf5) {
    testing::TempDir dir;
    // 7 x 5 chunks of 64 x 48 over a 400 x 230 dataset: edge chunks on both axes.
    constexpr hsize_t rows = 400, cols = 230, chunkRows = 64, chunkCols = 48;
    std::mt19937 rng(11);
    std::normal_distribution<float> normal;
    std::vector<float> expected(rows * cols);
    for (auto& v : expected)
        v = normal(rng);
    // Deflate at level 1 is ISA-L's stream where the build has it (chunk_codec.h), zlib's at 4.
    // 35 chunks in batches of 12 (3 threads): each stored while the next one encodes. One
    // writer for every codec: its workers serve write after write.
    ChunkWriter writer(3);
    for (auto [compression, level] : {std::pair{Compression::Deflate, 1},
                                      {Compression::Deflate, 4},
                                      {Compression::Zstd, 4},
                                      {Compression::Lz4, 4},
                                      {Compression::None, 0}}) {
        const std::string name = std::string(toString(compression)) + std::to_string(level);
        auto file = File::create((dir / (name + ".h5")).string());
        ASSERT_TRUE(file);
        auto root = Group::root(*file).value();
        const Type f32 = Type::nativeFloat();
        auto dcpl =
            PropertyList::chunkedDataset({chunkRows, chunkCols}, compression, level, f32, {});
        auto dataset = Dataset::create(root, "d", f32, {rows, cols}, *dcpl).value();
        std::vector<std::vector<float>> padded;
        std::vector<PlainChunk> chunks;
        for (hsize_t r0 = 0; r0 < rows; r0 += chunkRows) {
            for (hsize_t c0 = 0; c0 < cols; c0 += chunkCols) {
                auto& chunk = padded.emplace_back(chunkRows * chunkCols, 0.0f);
                for (hsize_t r = r0; r < std::min(rows, r0 + chunkRows); ++r)
                    for (hsize_t c = c0; c < std::min(cols, c0 + chunkCols); ++c)
                        chunk[(r - r0) * chunkCols + (c - c0)] = expected[r * cols + c];
            }
        }
        // Every other chunk is handed over as a fill function (gathered on the worker).
        size_t index = 0;
        for (hsize_t r0 = 0; r0 < rows; r0 += chunkRows) {
            for (hsize_t c0 = 0; c0 < cols; c0 += chunkCols, ++index) {
                const float* data = padded[index].data();
                if (index % 2 == 0) {
                    chunks.push_back({{r0, c0}, data});
                } else {
                    chunks.push_back({{r0, c0}, nullptr, [data](void* out) {
                                          std::memcpy(out, data, chunkRows * chunkCols * 4);
                                      }});
                }
            }
        }
        const size_t count = chunks.size();
        ASSERT_TRUE(writer.write(
            {{&dataset, {compression, level, 4}, chunkRows * chunkCols * 4, std::move(chunks)}}));
        std::vector<float> read(rows * cols, -1.0f);
        ASSERT_TRUE(dataset.read(f32, read.data()));
        EXPECT_EQ(read, expected) << name;
        EXPECT_EQ(dataset.allocatedChunks().value(), count);
    }
}

// Sets of several datasets (chunk sizes, element sizes and codecs of their own) in one write
// share its batches; each chunk lands in its own dataset.
TEST(ChunkWriter, SetsOfSeveralDatasetsInOneWrite) {
    testing::TempDir dir;
    auto file = File::create((dir / "sets.h5").string());
    ASSERT_TRUE(file);
    auto root = Group::root(*file).value();
    const Type f32 = Type::nativeFloat();
    struct Spec {
        const char* name;
        hsize_t rows, chunkRows;
        Compression compression;
        int level;
    };
    const Spec specs[] = {{"a", 1000, 7, Compression::Deflate, 1},
                          {"b", 64, 64, Compression::Lz4, 1},
                          {"c", 300, 32, Compression::None, 0},
                          {"d", 513, 100, Compression::Zstd, 3}};
    constexpr hsize_t cols = 24;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    std::vector<Dataset> datasets;
    std::vector<std::vector<float>> expected;
    std::deque<std::vector<float>> padded;  // chunks point into it: it never moves them
    datasets.reserve(std::size(specs));
    for (const Spec& spec : specs) {
        auto dcpl = PropertyList::chunkedDataset({spec.chunkRows, cols}, spec.compression,
                                                 spec.level, f32, {});
        datasets.push_back(Dataset::create(root, spec.name, f32, {spec.rows, cols}, *dcpl).value());
        auto& values = expected.emplace_back(spec.rows * cols);
        for (auto& v : values)
            v = normal(rng);
    }
    std::vector<ChunkSet> sets;
    for (size_t d = 0; d < std::size(specs); ++d) {
        const Spec& spec = specs[d];
        ChunkSet set{
            &datasets[d], {spec.compression, spec.level, 4}, spec.chunkRows * cols * 4, {}};
        for (hsize_t r0 = 0; r0 < spec.rows; r0 += spec.chunkRows) {
            auto& chunk = padded.emplace_back(spec.chunkRows * cols, 0.0f);
            const hsize_t rows = std::min(spec.chunkRows, spec.rows - r0);
            std::copy_n(expected[d].begin() + static_cast<ptrdiff_t>(r0 * cols), rows * cols,
                        chunk.begin());
            const float* data = chunk.data();
            const size_t bytes = chunk.size() * 4;
            if ((r0 / spec.chunkRows) % 3 == 1)  // some gathered on the worker, codec or not
                set.chunks.push_back({{r0, 0}, nullptr, [data, bytes](void* out) {
                                          std::memcpy(out, data, bytes);
                                      }});
            else
                set.chunks.push_back({{r0, 0}, data});
        }
        sets.push_back(std::move(set));
    }
    ChunkWriter writer(4);
    ASSERT_TRUE(writer.write(sets));
    for (size_t d = 0; d < std::size(specs); ++d) {
        std::vector<float> read(expected[d].size(), -1.0f);
        ASSERT_TRUE(datasets[d].read(f32, read.data()));
        EXPECT_EQ(read, expected[d]) << specs[d].name;
        EXPECT_EQ(datasets[d].allocatedChunks().value(), sets[d].chunks.size()) << specs[d].name;
    }
}

// Cancelled while encoders run ahead: the write stops within the next 64 chunks, returns
// Cancelled, leaves the rest unstored, and its encoders are free for the next write.
TEST(ChunkWriter, CancelStopsTheWriteAndFreesTheEncoders) {
    testing::TempDir dir;
    auto file = File::create((dir / "cancel.h5").string());
    ASSERT_TRUE(file);
    auto root = Group::root(*file).value();
    const Type f32 = Type::nativeFloat();
    constexpr hsize_t chunkRows = 16, cols = 16, rows = 1000 * chunkRows;
    auto dcpl = PropertyList::chunkedDataset({chunkRows, cols}, Compression::Deflate, 1, f32, {});
    auto dataset = Dataset::create(root, "d", f32, {rows, cols}, *dcpl).value();
    std::atomic<bool> cancel{false};
    std::atomic<int> filled{0};
    ChunkSet set{&dataset, {Compression::Deflate, 1, 4}, chunkRows * cols * 4, {}};
    for (hsize_t r0 = 0; r0 < rows; r0 += chunkRows)
        set.chunks.push_back({{r0, 0}, nullptr, [&](void* out) {
                                  std::memset(out, 0, chunkRows * cols * 4);
                                  if (++filled == 10) cancel = true;
                              }});
    ChunkWriter writer(4);
    auto rc = writer.write({set}, &cancel);
    ASSERT_FALSE(rc);
    EXPECT_EQ(rc.error().kind, ErrorKind::Cancelled);
    const uint64_t stored = dataset.allocatedChunks().value();
    EXPECT_GE(stored, 9u);
    EXPECT_LT(stored, 128u);
    EXPECT_LT(filled.load(), 1000) << "encoders stop taking chunks";
    // The same writer serves the next write in full.
    cancel = false;
    auto again = Dataset::create(root, "e", f32, {rows, cols}, *dcpl).value();
    set.dataset = &again;
    for (auto& chunk : set.chunks)
        chunk.fill = [](void* out) { std::memset(out, 0, chunkRows * cols * 4); };
    ASSERT_TRUE(writer.write({set}, &cancel));
    EXPECT_EQ(again.allocatedChunks().value(), set.chunks.size());
}

}  // namespace
}  // namespace gatescope::data::h5
