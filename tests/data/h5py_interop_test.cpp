// Interoperability: Debian's python3 + h5py reads a trace written by gatescope and reports what it
// sees; the values must equal what was written. Skips only when h5py cannot be imported.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "data/h5/filters.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

struct PythonRun {
    int status = -1;
    std::string output;
};

PythonRun runCheck(const std::filesystem::path& trace, const std::string& extra = {}) {
    // Debian's interpreter first: h5py is a Debian package, another python3 may lack it.
    std::string python =
        std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    std::string command = python + " '" GATESCOPE_SOURCE_DIR "/tests/data/h5py_check.py' '" +
                          trace.string() + "' " + extra + " 2>&1";
    PythonRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return run;
    char buffer[65536];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0)
        run.output.append(buffer, got);
    int status = pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

std::vector<float> asFloats(const nlohmann::json& values) {
    std::vector<float> out;
    for (const auto& v : values)
        out.push_back(v.is_null() ? NAN : v.get<float>());
    return out;
}

void checkTrace(const testing::Sample& s, const nlohmann::json& got) {
    EXPECT_EQ(got["root"]["gatescope_format"], "gatescope-trace");
    EXPECT_EQ(got["root"]["format_version"], kFormatVersion);
    EXPECT_EQ(got["root"]["n_tokens"], s.n);
    EXPECT_EQ(got["root"]["n_layers"], static_cast<int>(s.layers.size()));
    EXPECT_EQ(got["root"]["model_type"], s.manifest["model_type"]);
    EXPECT_EQ(got["manifest"], s.manifest);

    const auto& tokens = got["tokens"];
    EXPECT_EQ(tokens["ids"].get<std::vector<int32_t>>(), s.tokens.ids);
    EXPECT_EQ(tokens["source_text"].get<std::string>(), s.tokens.sourceText);
    EXPECT_EQ(tokens["source_bytes"].get<std::string>(), s.tokens.sourceText);
    EXPECT_EQ(tokens["source_bytes_dtype"], "uint8");
    ASSERT_EQ(tokens["text"].size(), s.tokens.text.size());
    for (size_t i = 0; i < s.tokens.text.size(); ++i)
        EXPECT_EQ(tokens["text"][i].get<std::string>(),
                  testing::expectedStoredText(s.tokens.text[i]));
    for (size_t i = 0; i < s.tokens.byteOffsets.size(); ++i) {
        EXPECT_EQ(tokens["byte_offsets"][i][0], s.tokens.byteOffsets[i][0]);
        EXPECT_EQ(tokens["byte_offsets"][i][1], s.tokens.byteOffsets[i][1]);
    }
    EXPECT_EQ(tokens["dtypes"], nlohmann::json({"int32", "int64"}));

    const auto& per = got["per_token"];
    EXPECT_EQ(per["dtypes"], nlohmann::json({"float32", "int32", "float32"}));
    EXPECT_EQ(per["target_rank"].get<std::vector<int32_t>>(), s.perToken.targetRank);
    EXPECT_EQ(asFloats(per["entropy"]), s.perToken.entropy);
    auto loss = asFloats(per["loss"]);
    ASSERT_EQ(loss.size(), s.perToken.loss.size());
    EXPECT_TRUE(per["loss"].back().is_null());  // NaN
    for (size_t i = 0; i + 1 < loss.size(); ++i)
        EXPECT_EQ(loss[i], s.perToken.loss[i]);

    for (size_t l = 0; l < s.layers.size(); ++l) {
        const auto& want = s.layers[l];
        const auto& layer = got["layers"][fmt::format("{:03d}", l)];
        ASSERT_TRUE(layer.is_object()) << "layer " << l;
        EXPECT_EQ(layer["attrs"]["n_heads"], want.header.nHeads);
        EXPECT_EQ(layer["attrs"]["n_kv_heads"], want.header.nKvHeads);
        EXPECT_EQ(layer["attrs"]["head_dim"], want.header.headDim);
        EXPECT_EQ(layer["attrs"]["value_dim"], want.header.valueDim);
        EXPECT_EQ(layer["attrs"]["n_channels"], want.header.nChannels);
        EXPECT_EQ(layer["attrs"]["score_kind"], want.header.scoreKind);
        EXPECT_EQ(layer["attrs"]["extras"], want.header.extras);
        EXPECT_EQ(layer["gates"]["dtype"], "float32");
        EXPECT_EQ(asFloats(layer["gates"]["values"]), want.gates);
        for (const auto& [name, f] : want.factors) {
            const auto& factor = layer["factors"][name];
            EXPECT_EQ(factor["shape"].get<std::vector<int64_t>>(), f.shape) << name;
            EXPECT_EQ(asFloats(factor["values"]), f.values) << name;
        }
        for (std::string map : {"attention", "decay"})
            for (Pool pool : {Pool::Max, Pool::Mean})
                for (int level = want.levels.finest; level <= want.levels.coarsest; ++level) {
                    std::string key = fmt::format("{}/{}/{}", map, toString(pool), level);
                    const auto& p = layer["pyramid"][key];
                    ASSERT_TRUE(p.is_object()) << key;
                    int64_t side = levelSide(s.n, level);
                    int64_t tiles = tilesPerSide(s.n, level);
                    EXPECT_EQ(p["shape"], nlohmann::json({want.header.nHeads, side, side}));
                    EXPECT_EQ(p["chunks"], nlohmann::json({1, std::min<int64_t>(side, 256),
                                                           std::min<int64_t>(side, 256)}));
                    EXPECT_EQ(p["fillvalue"], 0.0);
                    EXPECT_EQ(p["allocated_chunks"], want.header.nHeads * tiles * (tiles + 1) / 2);
                    EXPECT_EQ(p["attrs"]["level"], level);
                    EXPECT_EQ(p["attrs"]["cell_size"], int64_t{1} << level);
                    EXPECT_EQ(p["attrs"]["n_tokens"], s.n);
                    EXPECT_EQ(p["attrs"]["pool"], toString(pool));
                    EXPECT_EQ(p["attrs"]["map"], map);
                    EXPECT_EQ(p["attrs"]["interpretation"], "image");
                    double sum = 0;
                    for (int h = 0; h < want.header.nHeads; ++h)
                        for (int64_t r = 0; r < side; ++r)
                            for (int64_t c = 0; c < side; ++c)
                                sum += testing::expectedPyramidCell(s, static_cast<int>(l), map,
                                                                    pool, level, h, r, c);
                    EXPECT_NEAR(p["sum"].get<double>(), sum, 1e-9 * std::abs(sum)) << key;
                    if (level != want.levels.coarsest) continue;
                    auto values = asFloats(p["values"]);
                    ASSERT_EQ(static_cast<int64_t>(values.size()),
                              want.header.nHeads * side * side);
                    int64_t mismatches = 0;
                    for (int h = 0; h < want.header.nHeads; ++h)
                        for (int64_t r = 0; r < side; ++r)
                            for (int64_t c = 0; c < side; ++c)
                                mismatches +=
                                    values[(h * side + r) * side + c] !=
                                    testing::expectedPyramidCell(s, static_cast<int>(l), map, pool,
                                                                 level, h, r, c);
                    EXPECT_EQ(mismatches, 0) << key;
                }
    }
    EXPECT_TRUE(got["nxdata_problems"].empty()) << got["nxdata_problems"].dump();
    for (std::string group : {"/per_token", "/tokens", "/layers/000/gates", "/layers/000/factors",
                              "/layers/001/pyramid/attention/max"})
        EXPECT_NE(std::find(got["nxdata_groups"].begin(), got["nxdata_groups"].end(), group),
                  got["nxdata_groups"].end())
            << group << " is not an NXdata group";
    EXPECT_EQ(got["root"]["default"], "per_token");
}

void runInterop(Compression compression, const std::string& extra) {
    testing::TempDir dir;
    testing::Sample sample = testing::makeSample(257, 99);
    auto path = dir / "interop.h5";
    TraceWriterOptions options;
    options.compression = compression;
    auto rc = testing::writeSample(sample, path, options);
    ASSERT_TRUE(rc) << rc.error().describe();
    PythonRun run = runCheck(path, extra);
    if (run.status == 77) GTEST_SKIP() << run.output;
    ASSERT_EQ(run.status, 0) << run.output;
    // Only the marked line is JSON: h5py or numpy may print warnings around it.
    size_t marker = run.output.find("JSON: ");
    ASSERT_NE(marker, std::string::npos) << run.output;
    size_t end = run.output.find('\n', marker);
    auto got =
        nlohmann::json::parse(run.output.substr(marker + 6, end - marker - 6), nullptr, false);
    ASSERT_FALSE(got.is_discarded()) << run.output.substr(0, 2000);
    checkTrace(sample, got);
}

TEST(H5pyInterop, DefaultDeflateTraceReadsInStockH5py) {
    runInterop(Compression::Deflate, "");
}

TEST(H5pyInterop, UncompressedTraceReadsInStockH5py) {
    runInterop(Compression::None, "");
}

// The reference LZ4 plugin (Debian's hdf5-filter-plugin) must decode our lz4 chunks: proves the
// chunk layout matches filter 32004. Skips where the plugin is not installed.
TEST(H5pyInterop, Lz4TraceReadsThroughTheReferencePlugin) {
    runInterop(Compression::Lz4, "--need-filter " + std::to_string(h5::kLz4FilterId));
}

}  // namespace
}  // namespace gatescope::data
