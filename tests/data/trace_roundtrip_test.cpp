// Writer -> reader round trips of every dataset kind, random data, N in {1, 255, 257, 1000}, every
// compression choice.
#include <gtest/gtest.h>

#include <cmath>

#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

using testing::Sample;

struct Case {
    int64_t n;
    Compression compression;
    bool held = false;  ///< each layer's writes held and stored together
};

void PrintTo(const Case& c, std::ostream* out) {
    *out << "N=" << c.n << " " << toString(c.compression) << (c.held ? " held" : "");
}

class RoundTrip : public ::testing::TestWithParam<Case> {};

void expectTables(const TraceReader& reader, const Sample& s) {
    auto manifest = reader.manifest();
    ASSERT_TRUE(manifest) << manifest.error().describe();
    EXPECT_EQ(*manifest, s.manifest);

    auto tokens = reader.tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    EXPECT_EQ(tokens->ids, s.tokens.ids);
    EXPECT_EQ(tokens->byteOffsets, s.tokens.byteOffsets);
    EXPECT_EQ(tokens->sourceText, s.tokens.sourceText);
    ASSERT_EQ(tokens->text.size(), s.tokens.text.size());
    for (size_t i = 0; i < s.tokens.text.size(); ++i)
        EXPECT_EQ(tokens->text[i], testing::expectedStoredText(s.tokens.text[i])) << "token " << i;

    auto results = reader.perToken();
    ASSERT_TRUE(results) << results.error().describe();
    EXPECT_EQ(results->targetRank, s.perToken.targetRank);
    EXPECT_EQ(results->entropy, s.perToken.entropy);
    ASSERT_EQ(results->loss.size(), s.perToken.loss.size());
    for (size_t i = 0; i + 1 < s.perToken.loss.size(); ++i)
        EXPECT_EQ(results->loss[i], s.perToken.loss[i]);
    EXPECT_TRUE(std::isnan(results->loss.back()));
}

void expectLayers(const TraceReader& reader, const Sample& s) {
    const TraceSummary& summary = reader.summary();
    ASSERT_EQ(summary.layers.size(), s.layers.size());
    for (size_t l = 0; l < s.layers.size(); ++l) {
        const auto& want = s.layers[l];
        int li = static_cast<int>(l);
        const LayerInfo& info = summary.layers[l];
        EXPECT_EQ(info.index, li);
        EXPECT_EQ(info.header, want.header);
        EXPECT_TRUE(info.hasGates);
        ASSERT_EQ(info.factors.size(), want.factors.size());

        auto gates = reader.gates(li);
        ASSERT_TRUE(gates) << gates.error().describe();
        EXPECT_EQ(gates->shape,
                  (std::vector<int64_t>{want.header.nHeads, s.n, want.header.nChannels}));
        EXPECT_EQ(gates->values, want.gates);
        int64_t c = want.header.nChannels;
        int64_t begin = s.n / 3, end = s.n - s.n / 4;
        auto slice = reader.gatesForHead(li, 1, begin, end);
        ASSERT_TRUE(slice) << slice.error().describe();
        EXPECT_EQ(slice->shape, (std::vector<int64_t>{end - begin, c}));
        std::vector<float> expected(want.gates.begin() + (1 * s.n + begin) * c,
                                    want.gates.begin() + (1 * s.n + end) * c);
        EXPECT_EQ(slice->values, expected);

        for (const auto& [name, f] : want.factors) {
            const FactorInfo* fi = info.factor(name);
            ASSERT_NE(fi, nullptr) << name;
            EXPECT_EQ(fi->shape, f.shape);
            int64_t width = f.shape.size() == 3 ? f.shape[2] : 1;
            for (int64_t h = 0; h < f.shape[0]; ++h) {
                auto rows = reader.factor(li, name, static_cast<int>(h), 0, s.n);
                ASSERT_TRUE(rows) << rows.error().describe();
                std::vector<float> head(f.values.begin() + h * s.n * width,
                                        f.values.begin() + (h + 1) * s.n * width);
                EXPECT_EQ(rows->values, head) << name << " head " << h;
                EXPECT_EQ(rows->shape[0], s.n);
                EXPECT_EQ(rows->shape.size(), f.shape.size() - 1);
            }
        }
        ASSERT_EQ(info.pyramids.size(), 2u);
        for (const auto& p : info.pyramids) {
            EXPECT_EQ(p.heads, want.header.nHeads);
            EXPECT_EQ(p.pools, (std::vector<Pool>{Pool::Max, Pool::Mean}));
            EXPECT_EQ(p.levels.front(), want.levels.finest);
            EXPECT_EQ(p.levels.back(), want.levels.coarsest);
        }
    }
}

void expectAllTiles(const TraceReader& reader, const Sample& s) {
    for (size_t l = 0; l < s.layers.size(); ++l) {
        const auto& layer = s.layers[l];
        int li = static_cast<int>(l);
        for (std::string map : {"attention", "decay"})
            for (int level = layer.levels.finest; level <= layer.levels.coarsest; ++level) {
                int64_t tiles = tilesPerSide(s.n, level);
                for (Pool pool : {Pool::Max, Pool::Mean})
                    for (int h = 0; h < layer.header.nHeads; ++h)
                        for (int64_t tr = 0; tr < tiles; ++tr)
                            for (int64_t tc = 0; tc < tiles; ++tc) {
                                auto tile = reader.pyramidTile(li, map, pool, level, h, tr, tc);
                                ASSERT_TRUE(tile) << tile.error().describe();
                                int64_t mismatches = 0;
                                for (int64_t r = 0; r < kTileSide; ++r)
                                    for (int64_t c = 0; c < kTileSide; ++c)
                                        mismatches += tile->at(r, c) !=
                                                      testing::expectedPyramidCell(
                                                          s, li, map, pool, level, h,
                                                          tr * kTileSide + r, tc * kTileSide + c);
                                ASSERT_EQ(mismatches, 0)
                                    << map << " level " << level << " tile " << tr << "," << tc;
                            }
            }
    }
}

TEST_P(RoundTrip, EveryDatasetKind) {
    const Case& param = GetParam();
    testing::TempDir dir;
    Sample sample = testing::makeSample(param.n, 1234 + static_cast<uint32_t>(param.n));
    auto path = dir / "trace.h5";
    TraceWriterOptions options;
    options.compression = param.compression;
    auto rc = testing::writeSample(sample, path, options, param.held);
    ASSERT_TRUE(rc) << rc.error().describe();
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial-" + std::to_string(getpid())));

    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    const TraceSummary& summary = (*reader)->summary();
    EXPECT_EQ(summary.nTokens, param.n);
    EXPECT_EQ(summary.formatVersion, kFormatVersion);
    EXPECT_EQ(summary.modelType, "forgetting_transformer-project_fox");
    EXPECT_EQ(summary.compression, toString(param.compression));
    EXPECT_TRUE(summary.hasPerToken);
    expectTables(**reader, sample);
    expectLayers(**reader, sample);
    expectAllTiles(**reader, sample);
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
    return "N" + std::to_string(info.param.n) + "_" + toString(info.param.compression) +
           (info.param.held ? "_held" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RoundTrip,
    ::testing::Values(Case{1, Compression::Deflate}, Case{255, Compression::Deflate},
                      Case{257, Compression::Deflate}, Case{1000, Compression::Deflate},
                      Case{1, Compression::None}, Case{257, Compression::None},
                      Case{1, Compression::Zstd}, Case{1000, Compression::Zstd},
                      Case{1, Compression::Lz4}, Case{1000, Compression::Lz4},
                      Case{1000, Compression::Deflate, true}, Case{257, Compression::None, true},
                      Case{1000, Compression::Zstd, true}),
    caseName);

}  // namespace
}  // namespace gatescope::data
