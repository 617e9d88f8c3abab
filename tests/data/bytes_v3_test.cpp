// Format v3's two byte savings, through TraceWriter and TraceReader: factors a bf16 forward
// computed stored as bfloat16 (exact: read back bit for bit; h5py reads them as float32 through
// HDF5's conversion, checked in tests/data/h5py_check.py's way by the GPU run), and the decay
// pyramid of an additive-decay layer derived from its stored c, not stored.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "data/trace/derived_decay.h"
#include "data/trace/trace_reader.h"
#include "data/trace/trace_writer.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

LayerHeader fox(int heads, int dim, int64_t window = 0) {
    return {heads, heads, dim, dim, 1, "additive_decay", {{"scale", 0.5}, {"window", window}}};
}

float widen(uint16_t bits) {
    const uint32_t word = uint32_t{bits} << 16;
    float value;
    std::memcpy(&value, &word, 4);
    return value;
}

std::unique_ptr<TraceWriter> start(const std::filesystem::path& path, const testing::Sample& s,
                                   TraceWriterOptions options = {}) {
    auto w = TraceWriter::create(path, options);
    EXPECT_TRUE(w);
    if (!w) return nullptr;
    EXPECT_TRUE((*w)->writeManifest(s.manifest));
    EXPECT_TRUE((*w)->writeTokens(s.tokens));
    EXPECT_TRUE((*w)->writePerToken(s.perToken));
    return std::move(*w);
}

TEST(TraceV3, Bf16FactorsReadBackBitForBit) {
    const int64_t n = 4100;  // two row chunks
    testing::TempDir dir;
    auto s = testing::makeSample(n, 3);
    const int heads = 2, dim = 5;
    std::mt19937 rng(9);
    std::vector<uint16_t> bits(static_cast<size_t>(heads * n * dim));
    for (auto& b : bits) {
        b = static_cast<uint16_t>(rng());
        if (((b >> 7) & 0xff) == 0xff) b &= 0x7f7f;  // finite values only (no inf/NaN patterns)
    }
    for (bool asBf16 : {true, false}) {
        TraceWriterOptions options;
        options.bf16Factors = asBf16;
        const auto path = dir / (asBf16 ? "bf16.h5" : "f32.h5");
        auto w = start(path, s, options);
        ASSERT_TRUE(w);
        ASSERT_TRUE(w->writeLayer(0, fox(heads, dim)));
        ASSERT_TRUE(w->writeFactorBf16(0, "q", bits.data(), {heads, n, dim}));
        auto lse = w->writeFactorBf16(0, "lse", bits.data(), {heads, n});
        ASSERT_FALSE(lse);  // float32 quantities are refused in 16 bits
        EXPECT_EQ(lse.error().kind, ErrorKind::Usage);
        ASSERT_TRUE(w->commit());
        auto reader = TraceReader::open(path);
        ASSERT_TRUE(reader) << reader.error().describe();
        EXPECT_EQ((*reader)->summary().formatVersion, kFormatVersion);
        const FactorInfo* q = (*reader)->summary().layer(0)->factor("q");
        ASSERT_TRUE(q);
        EXPECT_EQ(q->bf16, asBf16);
        EXPECT_FALSE(q->f16);
        for (int h = 0; h < heads; ++h) {
            auto got = (*reader)->factor(0, "q", h, 0, n);
            ASSERT_TRUE(got) << got.error().describe();
            for (int64_t i = 0; i < n * dim; ++i) {
                const float want = widen(bits[static_cast<size_t>(h * n * dim + i)]);
                ASSERT_EQ(std::memcmp(&got->values[i], &want, 4), 0) << h << " " << i;
            }
        }
    }
    // bf16 storage is half the bytes of float32 (no compression would hide it).
    TraceWriterOptions none;
    none.compression = Compression::None;
    for (bool asBf16 : {true, false}) {
        none.bf16Factors = asBf16;
        auto w = start(dir / "size.h5", s, none);
        ASSERT_TRUE(w->writeLayer(0, fox(heads, dim)));
        ASSERT_TRUE(w->writeFactorBf16(0, "q", bits.data(), {heads, n, dim}));
        ASSERT_TRUE(w->commit());
        static uintmax_t bf16Size = 0;
        const auto size = std::filesystem::file_size(dir / "size.h5");
        if (asBf16)
            bf16Size = size;
        else
            EXPECT_GE(size - bf16Size, uintmax_t(heads * n * dim * 2));
    }
}

/// A non-increasing c per head, as cumsum(log f) with log f <= 0.
std::vector<float> decayingC(int heads, int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> logF(-2.0f, 0.0f);
    std::vector<float> c(static_cast<size_t>(heads * n));
    for (int h = 0; h < heads; ++h) {
        float sum = 0.0f;
        for (int64_t i = 0; i < n; ++i)
            c[h * n + i] = (sum += logF(rng));
    }
    return c;
}

TEST(TraceV3, DecayPyramidIsDerivedFromMonotoneCAndStoredOtherwise) {
    const int64_t n = 700;
    const int heads = 2;
    const PyramidLevels levels{0, 2};
    testing::TempDir dir;
    auto s = testing::makeSample(n, 4);
    std::vector<float> tile(kTileSide * kTileSide, 0.25f), want(kTileSide * kTileSide);
    for (bool monotone : {true, false}) {
        auto c = decayingC(heads, n, 2);
        if (!monotone) c[n + 5] = c[n + 4] + 1.0f;  // head 1 rises once: not derivable
        const auto path = dir / (monotone ? "derived.h5" : "stored.h5");
        auto w = start(path, s);
        ASSERT_TRUE(w);
        ASSERT_TRUE(w->writeLayer(0, fox(heads, 4, 24)));
        ASSERT_TRUE(w->writeFactor(0, "log_decay_cumsum", c.data(), {heads, n}));
        ASSERT_TRUE(w->createPyramid(0, "decay", levels, heads));
        for (int level = levels.finest; level <= levels.coarsest; ++level)
            for (int h = 0; h < heads; ++h)
                for (int64_t t = 0; t < tilesPerSide(n, level); ++t)
                    ASSERT_TRUE(
                        w->writePyramidTile(0, "decay", Pool::Max, level, h, t, 0, tile.data()));
        ASSERT_TRUE(w->commit());
        auto reader = TraceReader::open(path);
        ASSERT_TRUE(reader) << reader.error().describe();
        const PyramidInfo* p = (*reader)->summary().layer(0)->pyramid("decay");
        ASSERT_TRUE(p);
        EXPECT_EQ(p->derived, monotone);
        EXPECT_EQ(p->levels, (std::vector<int>{0, 1, 2}));
        auto got = (*reader)->pyramidTile(0, "decay", Pool::Max, 1, 1, 1, 0);
        ASSERT_TRUE(got) << got.error().describe();
        if (monotone) {  // the cells of c, window 24 from the header
            deriveDecayTile(c.data() + n, n, 24, 1, Pool::Max, 1, 0, want.data());
            for (size_t i = 0; i < want.size(); ++i)
                ASSERT_EQ(got->values()[i], want[i]) << i;
            EXPECT_GT(want[kTileSide * 10 + 255], 0.0f);  // inside the window band
        } else {
            EXPECT_EQ(got->at(0, 0), 0.25f);  // the tile as written
        }
        EXPECT_FALSE((*reader)->pyramidTile(0, "decay", Pool::Mean, 3, 0, 0, 0));
    }
}

}  // namespace
}  // namespace gatescope::data
