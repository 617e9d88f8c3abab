// ChunkWriter::writeAhead: a write returns once its sources are no longer read, leaving an encoded
// tail that the next call stores first; nothing of the tail is lost, not even its errors.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/h5/chunk_writer.h"
#include "data/h5/file.h"
#include "trace_test_util.h"

// Named: the tests build as one unity source, where anonymous namespaces merge.
namespace gatescope::data::h5::ahead_test {
namespace {

constexpr hsize_t kChunkRows = 32, kCols = 64, kRows = 300 * kChunkRows + 5;  // an edge chunk
constexpr size_t kChunkBytes = kChunkRows * kCols * 4;

struct Source {
    Dataset dataset;
    std::vector<float> values;               ///< what the dataset must hold
    std::vector<std::vector<float>> chunks;  ///< padded chunks the ChunkSet reads
};

/// A dataset of kRows x kCols random floats with `compression` and the chunks that fill it: even
/// ones at `data`, odd ones gathered by a fill function.
Source makeSource(Group& root, const std::string& name, Compression compression, unsigned seed) {
    const Type f32 = Type::nativeFloat();
    auto dcpl = PropertyList::chunkedDataset({kChunkRows, kCols}, compression, 1, f32, {});
    Source s{Dataset::create(root, name, f32, {kRows, kCols}, *dcpl).value(), {}, {}};
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    s.values.resize(kRows * kCols);
    for (auto& v : s.values)
        v = normal(rng);
    for (hsize_t r0 = 0; r0 < kRows; r0 += kChunkRows) {
        auto& chunk = s.chunks.emplace_back(kChunkRows * kCols, 0.0f);
        const hsize_t rows = std::min(kChunkRows, kRows - r0);
        std::memcpy(chunk.data(), s.values.data() + r0 * kCols, rows * kCols * 4);
    }
    return s;
}

ChunkSet setOf(Source& s, Compression compression) {
    ChunkSet set{&s.dataset, {compression, 1, 4}, kChunkBytes, {}};
    for (size_t c = 0; c < s.chunks.size(); ++c) {
        const float* data = s.chunks[c].data();
        const Dims offset{c * kChunkRows, 0};
        if (c % 2 == 0)
            set.chunks.push_back({offset, data});
        else
            set.chunks.push_back(
                {offset, nullptr, [data](void* out) { std::memcpy(out, data, kChunkBytes); }});
    }
    return set;
}

std::vector<float> readAll(const Dataset& dataset) {
    std::vector<float> read(kRows * kCols, -1.0f);
    EXPECT_TRUE(dataset.read(Type::nativeFloat(), read.data()));
    return read;
}

/// A fresh file in a temporary folder for each test.
class ChunkWriterAhead : public ::testing::Test {
protected:
    void SetUp() override {
        auto created = File::create((dir / "ahead.h5").string());
        ASSERT_TRUE(created);
        file = std::move(*created);
        root = Group::root(file).value();
    }
    testing::TempDir dir;
    File file;
    Group root;
};

void poison(Source& s) {
    for (auto& chunk : s.chunks)
        std::fill(chunk.begin(), chunk.end(), 12345.0f);
}

// The sources of each write are overwritten as soon as it returns, as the GPU pipeline reuses its
// staging buffer: what lands in the file is still what they held when handed over.
TEST_F(ChunkWriterAhead, SourcesAreFreeOnReturnAndTheTailIsStoredByTheNextCall) {
    ChunkWriter writer(4);
    std::vector<Source> sources;
    sources.reserve(4);
    for (int i = 0; i < 4; ++i) {
        Source& s = sources.emplace_back(makeSource(
            root, "d" + std::to_string(i), Compression::Deflate, static_cast<unsigned>(i)));
        ASSERT_TRUE(writer.writeAhead({setOf(s, Compression::Deflate)}));
        poison(s);
    }
    ASSERT_TRUE(writer.finish());
    for (auto& s : sources) {
        EXPECT_EQ(readAll(s.dataset), s.values);
        EXPECT_EQ(s.dataset.allocatedChunks().value(), s.chunks.size());
    }
    ASSERT_TRUE(writer.finish()) << "nothing left: finish again is a no-op";
}

// Stored straight from the caller's memory (no compression, no fill): all of it is stored before
// writeAhead returns, whatever the previous write left.
TEST_F(ChunkWriterAhead, UncompressedChunksAreStoredBeforeItReturns) {
    ChunkWriter writer(3);
    Source packed = makeSource(root, "packed", Compression::Deflate, 1);
    Source plain = makeSource(root, "plain", Compression::None, 2);
    ASSERT_TRUE(writer.writeAhead({setOf(packed, Compression::Deflate)}));
    poison(packed);
    ASSERT_TRUE(writer.writeAhead({setOf(plain, Compression::None)}));
    EXPECT_EQ(plain.dataset.allocatedChunks().value(), plain.chunks.size());
    EXPECT_EQ(packed.dataset.allocatedChunks().value(), packed.chunks.size());
    poison(plain);
    EXPECT_EQ(readAll(plain.dataset), plain.values);
    EXPECT_EQ(readAll(packed.dataset), packed.values);
}

// A chunk that cannot be stored (its offset lies outside the dataset) at the end of a write: its
// error comes back from that write or from the next call, never lost; the writer then serves the
// next write in full.
TEST_F(ChunkWriterAhead, AFailureInTheTailIsReturnedByTheNextCall) {
    ChunkWriter writer(4);
    Source s = makeSource(root, "d", Compression::Deflate, 3);
    ChunkSet set = setOf(s, Compression::Deflate);
    set.chunks.push_back({{kRows + 10 * kChunkRows, 0}, s.chunks[0].data()});
    const Status ahead = writer.writeAhead({set});
    const Status finished = writer.finish();
    EXPECT_FALSE(ahead && finished) << "the failed store was not reported";
    const Status failure = ahead ? finished : ahead;
    ASSERT_FALSE(failure);
    EXPECT_EQ(failure.error().kind, ErrorKind::Io) << failure.error().describe();
    Source again = makeSource(root, "e", Compression::Deflate, 4);
    ASSERT_TRUE(writer.write({setOf(again, Compression::Deflate)}));
    EXPECT_EQ(readAll(again.dataset), again.values);
}

// discard() drops a tail: nothing of it is stored afterwards, and the next write is whole.
TEST_F(ChunkWriterAhead, DiscardDropsTheTail) {
    ChunkWriter writer(4);
    Source s = makeSource(root, "d", Compression::Deflate, 5);
    ASSERT_TRUE(writer.writeAhead({setOf(s, Compression::Deflate)}));
    writer.discard();
    const uint64_t stored = s.dataset.allocatedChunks().value();
    ASSERT_TRUE(writer.finish());
    EXPECT_EQ(s.dataset.allocatedChunks().value(), stored) << "finish stored a dropped chunk";
    Source again = makeSource(root, "e", Compression::Deflate, 6);
    ASSERT_TRUE(writer.write({setOf(again, Compression::Deflate)}));
    EXPECT_EQ(readAll(again.dataset), again.values);
}

}  // namespace
}  // namespace gatescope::data::h5::ahead_test
