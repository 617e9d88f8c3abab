// The zstd (32015) and lz4 (32004) filters: their chunks decode with the plain libraries by the
// plugins' documented layout, chunks laid out by other encoders decode here, and corrupt chunks
// give an error rather than a crash.
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <random>

#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "trace_test_util.h"

// Named: the tests build as one unity source, where anonymous namespaces merge.
namespace gatescope::data::h5::filters_test {
namespace {

constexpr hsize_t kFilterRows = 200, kCols = 300;  // one chunk, not a power of two

std::vector<float> smoothData() {
    std::mt19937 rng(3);
    std::normal_distribution<float> noise(0.0f, 0.01f);
    std::vector<float> out(kFilterRows * kCols);
    for (hsize_t i = 0; i < out.size(); ++i)
        out[i] = std::sin(i * 0.001f) + noise(rng) + 2.0f;
    return out;
}

// HDF5's shuffle filter stores byte b of every element together: out[b * n + i] = in[i * 4 + b].
std::vector<unsigned char> shuffle(const std::vector<float>& values) {
    size_t n = values.size();
    const auto* in = reinterpret_cast<const unsigned char*>(values.data());
    std::vector<unsigned char> out(n * 4);
    for (size_t i = 0; i < n; ++i)
        for (size_t b = 0; b < 4; ++b)
            out[b * n + i] = in[i * 4 + b];
    return out;
}

uint64_t bigEndian(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v = (v << 8) | p[i];
    return v;
}

struct Fixture {
    testing::TempDir dir;
    File file;
    Dataset dataset;

    explicit Fixture(Compression compression) {
        file = File::create((dir / "filters.h5").string()).value();
        auto root = Group::root(file);
        Type f32 = Type::nativeFloat();
        auto dcpl = PropertyList::chunkedDataset({kFilterRows, kCols}, compression, 5, f32, {});
        dataset = Dataset::create(*root, "d", f32, {kFilterRows, kCols}, *dcpl).value();
    }

    std::vector<unsigned char> rawChunk() {
        auto lock = lockLibrary();
        hsize_t offset[2] = {0, 0}, size = 0;
        EXPECT_GE(H5Dget_chunk_storage_size(dataset.id(), offset, &size), 0);
        std::vector<unsigned char> raw(size);
        uint32_t mask = 0;
        EXPECT_GE(H5Dread_chunk(dataset.id(), H5P_DEFAULT, offset, &mask, raw.data()), 0);
        EXPECT_EQ(mask, 0u);
        return raw;
    }

    void writeRawChunk(const std::vector<unsigned char>& raw) {
        auto lock = lockLibrary();
        hsize_t offset[2] = {0, 0};
        ASSERT_GE(H5Dwrite_chunk(dataset.id(), H5P_DEFAULT, 0, offset, raw.size(), raw.data()), 0);
    }
};

TEST(Filters, ZstdChunkIsOneStandardFrame) {
    Fixture f(Compression::Zstd);
    auto data = smoothData();
    ASSERT_TRUE(f.dataset.write(Type::nativeFloat(), data.data()));
    auto raw = f.rawChunk();
    EXPECT_LT(raw.size(), data.size() * 4);
    std::vector<unsigned char> plain(data.size() * 4);
    size_t got = ZSTD_decompress(plain.data(), plain.size(), raw.data(), raw.size());
    ASSERT_FALSE(ZSTD_isError(got)) << ZSTD_getErrorName(got);
    ASSERT_EQ(got, plain.size());
    EXPECT_EQ(plain, shuffle(data));
    EXPECT_EQ(ZSTD_getFrameContentSize(raw.data(), raw.size()), plain.size());
}

TEST(Filters, Lz4ChunkFollowsThePluginLayout) {
    Fixture f(Compression::Lz4);
    auto data = smoothData();
    ASSERT_TRUE(f.dataset.write(Type::nativeFloat(), data.data()));
    auto raw = f.rawChunk();
    ASSERT_GE(raw.size(), 16u);
    uint64_t total = bigEndian(raw.data(), 8);
    uint64_t block = bigEndian(raw.data() + 8, 4);
    ASSERT_EQ(total, data.size() * 4);
    ASSERT_EQ(block, total);  // default: one block per chunk
    uint64_t stored = bigEndian(raw.data() + 12, 4);
    ASSERT_EQ(16 + stored, raw.size());
    std::vector<unsigned char> plain(total);
    int got = LZ4_decompress_safe(reinterpret_cast<const char*>(raw.data() + 16),
                                  reinterpret_cast<char*>(plain.data()), static_cast<int>(stored),
                                  static_cast<int>(total));
    ASSERT_EQ(got, static_cast<int>(total));
    EXPECT_EQ(plain, shuffle(data));
}

TEST(Filters, DecodesChunksFromOtherEncoders) {
    auto data = smoothData();
    std::vector<unsigned char> shuffled = shuffle(data);
    {  // lz4: several 10000-byte blocks, the last short, one block stored raw.
        Fixture f(Compression::Lz4);
        const uint64_t blockBytes = 10000;
        std::vector<unsigned char> raw(12);
        for (int i = 0; i < 8; ++i)
            raw[i] = static_cast<unsigned char>(shuffled.size() >> (56 - 8 * i));
        for (int i = 0; i < 4; ++i)
            raw[8 + i] = static_cast<unsigned char>(blockBytes >> (24 - 8 * i));
        for (size_t done = 0, index = 0; done < shuffled.size(); done += blockBytes, ++index) {
            size_t want = std::min<size_t>(blockBytes, shuffled.size() - done);
            std::vector<char> packed(LZ4_compressBound(static_cast<int>(want)));
            int size = LZ4_compress_default(reinterpret_cast<const char*>(shuffled.data() + done),
                                            packed.data(), static_cast<int>(want),
                                            static_cast<int>(packed.size()));
            bool storeRaw = index == 2;
            uint32_t stored = storeRaw ? static_cast<uint32_t>(want) : static_cast<uint32_t>(size);
            for (int i = 0; i < 4; ++i)
                raw.push_back(static_cast<unsigned char>(stored >> (24 - 8 * i)));
            if (storeRaw)
                raw.insert(raw.end(), shuffled.begin() + done, shuffled.begin() + done + want);
            else
                raw.insert(raw.end(), packed.begin(), packed.begin() + size);
        }
        f.writeRawChunk(raw);
        std::vector<float> back(data.size());
        auto rc = f.dataset.read(Type::nativeFloat(), back.data());
        ASSERT_TRUE(rc) << rc.error().describe();
        EXPECT_EQ(back, data);
    }
    {  // zstd: a streamed frame that does not record its content size.
        Fixture f(Compression::Zstd);
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        std::vector<unsigned char> raw(ZSTD_compressBound(shuffled.size()));
        ZSTD_outBuffer out{raw.data(), raw.size(), 0};
        ZSTD_inBuffer in{shuffled.data(), shuffled.size(), 0};
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
        size_t left = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
        ZSTD_freeCCtx(cctx);
        ASSERT_EQ(left, 0u);
        raw.resize(out.pos);
        ASSERT_EQ(ZSTD_getFrameContentSize(raw.data(), raw.size()), ZSTD_CONTENTSIZE_UNKNOWN);
        f.writeRawChunk(raw);
        std::vector<float> back(data.size());
        auto rc = f.dataset.read(Type::nativeFloat(), back.data());
        ASSERT_TRUE(rc) << rc.error().describe();
        EXPECT_EQ(back, data);
    }
}

TEST(Filters, CorruptChunksAreErrorsNotCrashes) {
    for (Compression c : {Compression::Deflate, Compression::Zstd, Compression::Lz4}) {
        Fixture f(c);
        auto data = smoothData();
        ASSERT_TRUE(f.dataset.write(Type::nativeFloat(), data.data()));
        auto raw = f.rawChunk();
        std::mt19937 rng(11);
        for (size_t i = raw.size() / 3; i < raw.size(); ++i)
            raw[i] = static_cast<unsigned char>(rng());
        if (c == Compression::Lz4) raw.resize(raw.size() / 2);  // truncated block too
        f.writeRawChunk(raw);
        std::vector<float> back(data.size());
        auto rc = f.dataset.read(Type::nativeFloat(), back.data());
        ASSERT_FALSE(rc) << toString(c);
        EXPECT_EQ(rc.error().kind, ErrorKind::Format);
        EXPECT_EQ(rc.error().object, "/d");
    }
}

}  // namespace
}  // namespace gatescope::data::h5::filters_test
