// TraceWriter API: argument errors leave the writer usable, ordering rules, the manifest check,
// incremental head-by-head writing across 4096-row chunks, f16 factors, the temporary name.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "data/trace/manifest.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

LayerHeader header(int heads, int kv, int dim) {
    return {heads, kv, dim, dim, 1, "additive_decay", {{"scale", 0.5}}};
}

TEST(TraceWriter, ArgumentErrorsLeaveTheWriterUsable) {
    testing::TempDir dir;
    auto path = dir / "t.h5";
    auto created = TraceWriter::create(path);
    ASSERT_TRUE(created) << created.error().describe();
    TraceWriter& w = **created;
    EXPECT_EQ(w.tempPath().string(), path.string() + ".partial-" + std::to_string(getpid()));
    EXPECT_TRUE(std::filesystem::exists(w.tempPath()));

    auto s = testing::makeSample(10, 3);
    float data[40] = {1};
    EXPECT_EQ(w.writeLayer(0, header(2, 2, 2)).ok(), true);
    EXPECT_EQ(w.writeFactor(0, "q", data, {2, 10, 2}).error().kind, ErrorKind::Usage);  // no N yet
    EXPECT_EQ(w.writePerToken(s.perToken).error().kind, ErrorKind::Usage);
    auto badOffsets = s.tokens;
    badOffsets.byteOffsets[3] = {5, 4};
    EXPECT_EQ(w.writeTokens(badOffsets).error().kind, ErrorKind::Usage);
    auto shortText = s.tokens;
    shortText.text.pop_back();
    EXPECT_EQ(w.writeTokens(shortText).error().kind, ErrorKind::Shape);
    ASSERT_TRUE(w.writeTokens(s.tokens));
    EXPECT_EQ(w.writeTokens(s.tokens).error().kind, ErrorKind::Usage);  // once only
    EXPECT_EQ(w.nTokens(), 10);

    EXPECT_EQ(w.writeLayer(0, header(2, 2, 2)).error().kind, ErrorKind::Usage);  // twice
    EXPECT_EQ(w.writeLayer(1000, header(2, 2, 2)).error().kind, ErrorKind::Usage);
    EXPECT_EQ(w.writeLayer(1, header(0, 2, 2)).error().kind, ErrorKind::Usage);
    EXPECT_EQ(w.writeFactor(5, "q", data, {2, 10, 2}).error().kind, ErrorKind::Usage);
    auto shape = w.writeFactor(0, "q", data, {3, 10, 2});
    EXPECT_EQ(shape.error().kind, ErrorKind::Shape);
    EXPECT_EQ(shape.error().object, "/layers/000/factors/q");
    EXPECT_EQ(w.writeFactor(0, "q", data, {2, 9, 2}).error().kind, ErrorKind::Shape);
    EXPECT_EQ(w.writeFactor(0, "a/b", data, {2, 10}).error().kind, ErrorKind::Usage);
    EXPECT_EQ(w.writeGates(0, data, 2, 10, 3).error().kind, ErrorKind::Shape);
    EXPECT_EQ(w.writeFactorHead(0, "undeclared", 0, data).error().kind, ErrorKind::Usage);
    ASSERT_TRUE(w.writeFactor(0, "q", data, {2, 10, 2}));
    EXPECT_EQ(w.writeFactorHead(0, "q", 2, data).error().kind, ErrorKind::Usage);
    ASSERT_TRUE(w.createPyramid(0, "attention", defaultPyramidLevels(10), 2));
    std::vector<float> tile(kTileSide * kTileSide, 1.0f);
    EXPECT_EQ(w.writePyramidTile(0, "attention", Pool::Max, 1, 0, 0, 0, tile.data()).error().kind,
              ErrorKind::Usage);  // level outside the pyramid
    EXPECT_EQ(w.writePyramidTile(0, "attention", Pool::Max, 0, 0, 1, 0, tile.data()).error().kind,
              ErrorKind::Usage);  // tile outside the grid

    auto incomplete = w.commit();
    ASSERT_FALSE(incomplete);
    EXPECT_EQ(incomplete.error().kind, ErrorKind::Usage);
    EXPECT_NE(incomplete.error().message.find("manifest per_token"), std::string::npos)
        << incomplete.error().message;
    auto manifest = s.manifest;
    manifest.erase("device");
    manifest["checkpoint"].erase("weight_sha256");
    manifest["created_at"] = 5;
    auto bad = w.writeManifest(manifest);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, ErrorKind::Usage);
    for (const char* word :
         {"device missing", "checkpoint/weight_sha256 missing", "created_at must be a string"})
        EXPECT_NE(bad.error().message.find(word), std::string::npos) << bad.error().message;
    ASSERT_TRUE(w.writeManifest(s.manifest));
    ASSERT_TRUE(w.writeManifest(s.manifest));  // replacing is allowed
    ASSERT_TRUE(w.writePerToken(s.perToken));
    ASSERT_TRUE(w.commit());
    EXPECT_EQ(w.writeLayer(3, header(2, 2, 2)).error().kind, ErrorKind::Usage);  // after commit
    EXPECT_FALSE(std::filesystem::exists(w.tempPath()));
    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    EXPECT_EQ((*reader)->summary().layers.size(), 1u);
    EXPECT_FALSE((*reader)->summary().layers[0].hasGates);
}

TEST(TraceWriter, ManifestStructProducesAValidManifest) {
    Manifest m;
    m.checkpointPath = "/ckpt";
    m.weightSha256["model.safetensors"] = std::string(64, 'f');
    m.modelType = "gsa";
    m.inputSha256 = std::string(64, '0');
    m.gatescopeVersion = "0.1.0";
    m.gitRevision = "abc";
    m.device = "cpu";
    m.attentionPath = "reference";
    auto json = m.toJson();
    EXPECT_TRUE(validateManifest(json, "x.h5"));
    EXPECT_EQ(json["checkpoint"]["weight_sha256"]["model.safetensors"], std::string(64, 'f'));
    EXPECT_EQ(json["created_at"].get<std::string>().size(), 20u);  // YYYY-MM-DDTHH:MM:SSZ
    EXPECT_FALSE(validateManifest(nlohmann::json::array(), "x.h5"));
}

TEST(TraceWriter, HeadByHeadAcrossChunkBoundariesAndF16) {
    const int64_t n = 9001;  // crosses two 4096-row chunk boundaries
    testing::TempDir dir;
    auto s = testing::makeSample(n, 8);
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    const int heads = 2, dim = 3;
    std::vector<std::vector<float>> q(heads, std::vector<float>(n * dim));
    for (auto& head : q)
        for (auto& v : head)
            v = dist(rng);
    auto path = dir / "big.h5";
    for (bool f16 : {false, true}) {
        TraceWriterOptions options;
        options.factorsAsF16 = f16;
        options.compression = f16 ? Compression::Zstd : Compression::Deflate;
        auto w = TraceWriter::create(path, options);
        ASSERT_TRUE(w);
        ASSERT_TRUE((*w)->writeManifest(s.manifest));
        ASSERT_TRUE((*w)->writeTokens(s.tokens));
        ASSERT_TRUE((*w)->writePerToken(s.perToken));
        ASSERT_TRUE((*w)->writeLayer(4, header(heads, heads, dim)));
        ASSERT_TRUE((*w)->declareFactor(4, "q", {heads, n, dim}));
        ASSERT_TRUE((*w)->declareGates(4, heads, 1));
        for (int h = heads - 1; h >= 0; --h) {  // any order
            ASSERT_TRUE((*w)->writeFactorHead(4, "q", h, q[h].data()));
            ASSERT_TRUE((*w)->writeGatesHead(4, h, q[h].data()));
        }
        ASSERT_TRUE((*w)->commit());  // replaces the previous trace at the same path

        auto reader = TraceReader::open(path, ReaderOptions{size_t{200} << 10});
        ASSERT_TRUE(reader) << reader.error().describe();
        const LayerInfo* layer = (*reader)->summary().layer(4);
        ASSERT_NE(layer, nullptr);
        EXPECT_EQ(layer->factor("q")->f16, f16);
        std::uniform_int_distribution<int64_t> row(0, n);
        for (int trial = 0; trial < 40; ++trial) {
            int h = trial % heads;
            int64_t a = row(rng), b = row(rng);
            if (a > b) std::swap(a, b);
            auto got = (*reader)->factor(4, "q", h, a, b);
            ASSERT_TRUE(got) << got.error().describe();
            ASSERT_EQ(got->shape, (std::vector<int64_t>{b - a, dim}));
            auto gates = (*reader)->gatesForHead(4, h, a, b);
            ASSERT_TRUE(gates) << gates.error().describe();
            for (int64_t i = 0; i < (b - a) * dim; ++i) {
                float want = q[h][a * dim + i];
                if (f16)  // round to nearest binary16: relative error at most 2^-11
                    ASSERT_LE(std::abs(got->values[i] - want),
                              std::abs(want) * 0x1p-11f + 0x1p-25f);
                else
                    ASSERT_EQ(got->values[i], want);
            }
            for (int64_t i = 0; i < b - a; ++i)
                ASSERT_EQ(gates->values[i], q[h][a + i]);  // [N, 1]: the first N values
        }
        auto stats = (*reader)->cacheStats();
        EXPECT_LE(stats.bytes, size_t{200} << 10);
        EXPECT_GT(stats.evictions, 0u);
    }
}

TEST(TraceWriter, DestroyedWithoutCommitLeavesNothing) {
    testing::TempDir dir;
    auto path = dir / "abandoned.h5";
    std::filesystem::path temp;
    {
        auto w = TraceWriter::create(path);
        ASSERT_TRUE(w);
        temp = (*w)->tempPath();
        auto s = testing::makeSample(50, 1);
        ASSERT_TRUE((*w)->writeTokens(s.tokens));
        EXPECT_TRUE(std::filesystem::exists(temp));
    }
    EXPECT_FALSE(std::filesystem::exists(temp));
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(TraceWriter, UnwritableFolderIsAnIoError) {
    auto w = TraceWriter::create("/proc/no-such-folder/trace.h5");
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().kind, ErrorKind::Io);
    EXPECT_NE(w.error().file.find("trace.h5.partial-"), std::string::npos);
}

}  // namespace
}  // namespace gatescope::data
