// The reader opens the previous format versions' traces: real files written by gatescope before
// each version change (tests/data/v*_traces/README.md say how). Their attention, recomputed here in
// float64 from the stored factors by the documented formula, must be their finest pyramid level;
// what later versions derive instead of storing must be what those files stored.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <fstream>

#include "data/trace/derived_decay.h"
#include "data/trace/trace_reader.h"
#include "data/trace/trace_schema.h"
#include "hostile_edits.h"
#include "support/temp_dir.h"

namespace gatescope::data {
namespace {

const std::filesystem::path kV1 = GATESCOPE_SOURCE_DIR "/tests/data/v1_traces";
const std::filesystem::path kV2 = GATESCOPE_SOURCE_DIR "/tests/data/v2_traces";
const std::filesystem::path kV3 = GATESCOPE_SOURCE_DIR "/tests/data/v3_traces";

TEST(PreviousVersion, Version1TracesOpenAndReadAsWritten) {
    static_assert(kOldestFormatVersion == kFormatVersion - 3);
    auto reader = TraceReader::open(kV1 / "fox_v1.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    const auto& summary = (*reader)->summary();
    EXPECT_EQ(summary.formatVersion, 1);
    EXPECT_EQ(summary.nTokens, 77);
    auto tokens = (*reader)->tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    // v1 has no source_bytes: the text comes from source_text, which is the input file.
    std::ifstream in(kV1 / "in.txt", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(tokens->sourceText, text);
    EXPECT_EQ(tokens->text[3], "\\xC3");  // what v1 stored for half of "é"
    auto manifest = (*reader)->manifest();
    ASSERT_TRUE(manifest) << manifest.error().describe();
    EXPECT_FALSE(manifest->at("input").contains("file_sha256"));

    const LayerInfo* layer = summary.layer(0);
    ASSERT_NE(layer, nullptr);
    const double scale = layer->header.extras.at("scale").get<double>();
    const int64_t n = summary.nTokens;
    for (int h = 0; h < layer->header.nHeads; ++h) {
        auto q = (*reader)->factor(0, "q", h, 0, n);
        auto k = (*reader)->factor(0, "k", h, 0, n);
        auto c = (*reader)->factor(0, "log_decay_cumsum", h, 0, n);
        auto lse = (*reader)->factor(0, "lse", h, 0, n);
        auto tile = (*reader)->pyramidTile(0, "attention", Pool::Max, 0, h, 0, 0);
        ASSERT_TRUE(q && k && c && lse && tile);
        const int64_t d = q->shape[1];
        double worst = 0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j <= i; ++j) {
                double dot = 0;
                for (int64_t x = 0; x < d; ++x)
                    dot += double(q->values[i * d + x]) * k->values[j * d + x];
                const double a =
                    std::exp(scale * dot + c->values[i] - c->values[j] - lse->values[i]);
                worst = std::max(worst, std::abs(a - tile->at(i, j)));
            }
        EXPECT_LT(worst, 1e-5) << "head " << h;
    }
}

TEST(PreviousVersion, Version1Float16FactorsStillWidenExactly) {
    auto reader = TraceReader::open(kV1 / "fox_v1_f16.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    const LayerInfo* layer = (*reader)->summary().layer(1);
    ASSERT_NE(layer, nullptr);
    // v1 rounded every factor, c and lse included, to float16.
    for (const char* name : {"q", "k", "lse", "log_decay_cumsum"}) {
        ASSERT_NE(layer->factor(name), nullptr) << name;
        EXPECT_TRUE(layer->factor(name)->f16) << name;
    }
    auto c = (*reader)->factor(1, "log_decay_cumsum", 0, 0, 77);
    ASSERT_TRUE(c) << c.error().describe();
    for (float v : c->values)
        EXPECT_TRUE(std::isfinite(v) && v <= 0);
}

// A version 2 trace stores its decay pyramid; version 3 derives it from c. The stored cells (the
// pyramid builders' own, written by gatescope before version 3) are what derivation gives from
// the file's c: every level, both pools, every head, at N = 700 (not a power of two).
TEST(PreviousVersion, Version2DecayPyramidsAreWhatDerivationGives) {
    auto reader = TraceReader::open(kV2 / "fox_v2.h5");
    ASSERT_TRUE(reader) << reader.error().describe();
    const auto& summary = (*reader)->summary();
    EXPECT_EQ(summary.formatVersion, 2);
    const int64_t n = summary.nTokens;
    EXPECT_EQ(n, 700);
    const LayerInfo* layer = summary.layer(0);
    ASSERT_NE(layer, nullptr);
    EXPECT_FALSE(layer->factor("q")->bf16);
    const PyramidInfo* decay = layer->pyramid("decay");
    ASSERT_NE(decay, nullptr);
    EXPECT_FALSE(decay->derived);
    EXPECT_EQ(decay->levels, (std::vector<int>{1, 2}));
    std::vector<float> want(kTileSide * kTileSide);
    double worst = 0;
    int64_t nonzero = 0;
    for (int h = 0; h < layer->header.nHeads; ++h) {
        auto c = (*reader)->factor(0, "log_decay_cumsum", h, 0, n);
        ASSERT_TRUE(c) << c.error().describe();
        ASSERT_TRUE(isNonIncreasing(c->values.data(), n));
        for (int level : decay->levels)
            for (Pool pool : {Pool::Max, Pool::Mean})
                for (int64_t tr = 0; tr < tilesPerSide(n, level); ++tr)
                    for (int64_t tc = 0; tc <= tr; ++tc) {
                        auto tile = (*reader)->pyramidTile(0, "decay", pool, level, h, tr, tc);
                        ASSERT_TRUE(tile) << tile.error().describe();
                        deriveDecayTile(c->values.data(), n, 0, level, pool, tr, tc, want.data());
                        for (size_t i = 0; i < want.size(); ++i) {
                            const double stored = tile->values()[i], derived = want[i];
                            worst = std::max(
                                worst, std::abs(stored - derived) / (std::abs(stored) + 1e-30));
                            nonzero += stored != 0;
                            // 0 where the builders' float32 exp underflowed (below e^-87);
                            // cells that small may differ by the underflow itself.
                            ASSERT_LE(std::abs(stored - derived), 1e-5 * std::abs(stored) + 2e-38)
                                << i;
                        }
                    }
    }
    EXPECT_GT(nonzero, 1000);
    EXPECT_LT(worst, 2e-5);  // the builders exponentiate in float32, derivation in float64
    std::printf("[ v2 decay ] max relative |stored - derived| = %.3g over %lld cells\n", worst,
                static_cast<long long>(nonzero));
}

// A version 3 trace stores every pyramid level; version 4 stores every third from the finest and
// pools the others from the stored level below (here the finest). The file below is the v3 trace
// with its coarse levels removed and the v4 attributes added, as gatescope now writes it: every
// pooled cell must be the cell the pyramid builder stored (max exactly; mean to float32 rounding),
// at N = 1100 (levels 1..3: 550, 275 and 138 cells a side, none a multiple of the 256-cell tile).
TEST(PreviousVersion, Version3CoarseLevelsAreWhatPoolingGives) {
    auto v3 = TraceReader::open(kV3 / "fox_v3.h5");
    ASSERT_TRUE(v3) << v3.error().describe();
    EXPECT_EQ((*v3)->summary().formatVersion, 3);
    const int64_t n = (*v3)->summary().nTokens;
    EXPECT_EQ(n, 1100);
    const PyramidInfo* stored = (*v3)->summary().layer(0)->pyramid("attention");
    ASSERT_NE(stored, nullptr);
    EXPECT_EQ(stored->levels, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(stored->stored, (std::vector<int>{1, 2, 3}));

    test::TempDir dir;
    const auto path = dir / "fox_v4.h5";
    std::filesystem::copy_file(kV3 / "fox_v3.h5", path);
    test::editTrace(path, [](hid_t file) {
        test::setIntAttribute(file, "/", "format_version", 4);
        for (const char* pool : {"max", "mean"}) {
            const std::string group = std::string("/layers/000/pyramid/attention/") + pool;
            for (const char* level : {"2", "3"})
                EXPECT_GE(H5Ldelete(file, (group + "/" + level).c_str(), H5P_DEFAULT), 0);
            test::setIntAttribute(file, group.c_str(), schema::kCoarsestLevel, 3);
        }
    });
    auto v4 = TraceReader::open(path);
    ASSERT_TRUE(v4) << v4.error().describe();
    const LayerInfo* layer = (*v4)->summary().layer(0);
    const PyramidInfo* pooled = layer->pyramid("attention");
    ASSERT_NE(pooled, nullptr);
    EXPECT_EQ(pooled->levels, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(pooled->stored, (std::vector<int>{1}));
    EXPECT_EQ(pooled->poolSource(3), 1);
    double worstMean = 0;
    int64_t nonzero = 0;
    for (int h = 0; h < layer->header.nHeads; ++h)
        for (int level : {2, 3})
            for (Pool pool : {Pool::Max, Pool::Mean})
                for (int64_t tr = 0; tr < tilesPerSide(n, level); ++tr)
                    for (int64_t tc = 0; tc < tilesPerSide(n, level); ++tc) {
                        auto want = (*v3)->pyramidTile(0, "attention", pool, level, h, tr, tc);
                        auto got = (*v4)->pyramidTile(0, "attention", pool, level, h, tr, tc);
                        ASSERT_TRUE(want && got);
                        ASSERT_EQ(got->rows, want->rows);
                        ASSERT_EQ(got->cols, want->cols);
                        for (int64_t i = 0; i < kTileSide; ++i)
                            for (int64_t j = 0; j < kTileSide; ++j) {
                                const float w = want->at(i, j), g = got->at(i, j);
                                nonzero += w != 0;
                                if (pool == Pool::Max) {
                                    ASSERT_EQ(g, w)
                                        << "level " << level << " cell " << i << "," << j;
                                } else {
                                    const double rel = std::abs(double(g) - w) / (w + 1e-37);
                                    worstMean = std::max(worstMean, rel);
                                    ASSERT_LE(rel, 2.5e-7) << "level " << level;
                                }
                            }
                    }
    EXPECT_GT(nonzero, 100000);
    std::printf(
        "[ v3 levels ] max relative |stored - pooled| of mean cells = %.3g over %lld "
        "nonzero cells\n",
        worstMean, static_cast<long long>(nonzero));
    // A pooled level is read like a stored one, and out-of-range requests name its path.
    auto bad = (*v4)->pyramidTile(0, "attention", Pool::Mean, 3, layer->header.nHeads, 0, 0);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, ErrorKind::Usage);
    EXPECT_EQ(bad.error().object, schema::pyramidPath(0, "attention", Pool::Mean, 3));
}

}  // namespace
}  // namespace gatescope::data
