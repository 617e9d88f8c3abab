// Bad input: truncated files, non-HDF5 files, future versions, missing datasets, wrong shapes and
// dtypes. Each gives a clear Error naming the file and what is wrong; none crashes.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>
#include <random>

#include "data/h5/library.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

class BadInput : public ::testing::Test {
protected:
    void SetUp() override {
        sample = testing::makeSample(300, 21);
        good = dir / "good.h5";
        auto rc = testing::writeSample(sample, good);
        ASSERT_TRUE(rc) << rc.error().describe();
    }

    std::filesystem::path copyOf(const std::string& name) {
        auto path = dir / name;
        std::filesystem::copy_file(good, path);
        return path;
    }

    // Edits a copy with the raw HDF5 API (the trace API cannot write bad traces on purpose).
    template <class Edit>
    std::filesystem::path edited(const std::string& name, Edit edit) {
        auto path = copyOf(name);
        auto lock = h5::lockLibrary();
        hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        EXPECT_GE(file, 0);
        edit(file);
        EXPECT_GE(H5Fclose(file), 0);
        return path;
    }

    static void expectError(const Error& error, ErrorKind kind, const std::filesystem::path& file,
                            const std::string& object, const std::string& words) {
        EXPECT_EQ(error.kind, kind) << error.describe();
        EXPECT_EQ(error.file, file.string());
        EXPECT_EQ(error.object, object);
        EXPECT_NE(error.message.find(words), std::string::npos) << error.describe();
        std::cout << "    error: " << error.describe() << "\n";
    }

    testing::TempDir dir;
    testing::Sample sample;
    std::filesystem::path good;
};

TEST_F(BadInput, TruncatedFiles) {
    auto size = std::filesystem::file_size(good);
    for (double fraction : {0.001, 0.1, 0.5, 0.9, 0.999}) {
        auto path = dir / ("truncated-" + std::to_string(fraction) + ".h5");
        std::filesystem::copy_file(good, path);
        std::filesystem::resize_file(path, static_cast<uintmax_t>(size * fraction));
        auto reader = TraceReader::open(path);
        ASSERT_FALSE(reader) << fraction;
        EXPECT_EQ(reader.error().kind, ErrorKind::Format) << reader.error().describe();
        EXPECT_EQ(reader.error().file, path.string());
        std::cout << "    error: " << reader.error().describe() << "\n";
    }
}

TEST_F(BadInput, NotHdf5) {
    auto path = dir / "random.h5";
    std::mt19937 rng(1);
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 100000; ++i)
        out.put(static_cast<char>(rng()));
    out.close();
    auto reader = TraceReader::open(path);
    ASSERT_FALSE(reader);
    expectError(reader.error(), ErrorKind::Format, path, "", "not an HDF5 file");

    auto empty = dir / "empty.h5";
    std::ofstream(empty).close();
    auto fromEmpty = TraceReader::open(empty);
    ASSERT_FALSE(fromEmpty);
    EXPECT_EQ(fromEmpty.error().kind, ErrorKind::Format);

    auto absent = TraceReader::open(dir / "absent.h5");
    ASSERT_FALSE(absent);
    expectError(absent.error(), ErrorKind::Io, dir / "absent.h5", "", "no such file");

    auto folder = TraceReader::open(dir.path());
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().kind, ErrorKind::Io);
}

TEST_F(BadInput, FutureVersionAndOtherFormats) {
    auto future = edited("future.h5", [](hid_t file) {
        hid_t attr = H5Aopen(file, "format_version", H5P_DEFAULT);
        int64_t next = kFormatVersion + 1;
        EXPECT_GE(H5Awrite(attr, H5T_NATIVE_INT64, &next), 0);
        H5Aclose(attr);
    });
    auto reader = TraceReader::open(future);
    ASSERT_FALSE(reader);
    expectError(reader.error(), ErrorKind::Version, future, "/",
                "version " + std::to_string(kFormatVersion + 1));

    auto other = edited("other.h5", [](hid_t file) { H5Adelete(file, "gatescope_format"); });
    auto notTrace = TraceReader::open(other);
    ASSERT_FALSE(notTrace);
    expectError(notTrace.error(), ErrorKind::Format, other, "/", "not a gatescope trace");

    auto renamed = edited("renamed.h5", [](hid_t file) {
        H5Adelete(file, "gatescope_format");
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, 9);
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t attr = H5Acreate2(file, "gatescope_format", type, space, H5P_DEFAULT, H5P_DEFAULT);
        EXPECT_GE(H5Awrite(attr, type, "other-fmt"), 0);
        H5Aclose(attr);
        H5Sclose(space);
        H5Tclose(type);
    });
    auto wrongName = TraceReader::open(renamed);
    ASSERT_FALSE(wrongName);
    expectError(wrongName.error(), ErrorKind::Version, renamed, "/", "'other-fmt'");
}

TEST_F(BadInput, MissingDatasets) {
    auto path = edited("missing.h5", [](hid_t file) {
        EXPECT_GE(H5Ldelete(file, "/per_token/loss", H5P_DEFAULT), 0);
        EXPECT_GE(H5Ldelete(file, "/tokens/text", H5P_DEFAULT), 0);
        EXPECT_GE(H5Ldelete(file, "/layers/001/pyramid/decay/mean/1", H5P_DEFAULT), 0);
        EXPECT_GE(H5Ldelete(file, "/manifest", H5P_DEFAULT), 0);
    });
    auto reader = TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    auto perToken = (*reader)->perToken();
    ASSERT_FALSE(perToken);
    expectError(perToken.error(), ErrorKind::Missing, path, "/per_token/loss", "no such dataset");
    auto tokens = (*reader)->tokens();
    ASSERT_FALSE(tokens);
    expectError(tokens.error(), ErrorKind::Missing, path, "/tokens/text", "no such dataset");
    auto manifest = (*reader)->manifest();
    ASSERT_FALSE(manifest);
    expectError(manifest.error(), ErrorKind::Missing, path, "/manifest", "no such dataset");
    auto tile = (*reader)->pyramidTile(1, "decay", Pool::Mean, 1, 0, 0, 0);
    ASSERT_FALSE(tile);
    expectError(tile.error(), ErrorKind::Missing, path, "/layers/001/pyramid/decay/mean/1",
                "no such dataset");
    auto factor = (*reader)->factor(0, "nope", 0, 0, 1);
    ASSERT_FALSE(factor);
    expectError(factor.error(), ErrorKind::Missing, path, "/layers/000/factors/nope",
                "no such factor");
    auto layer = (*reader)->gates(7);
    ASSERT_FALSE(layer);
    EXPECT_EQ(layer.error().kind, ErrorKind::Missing);
    EXPECT_NE(layer.error().message.find("no layer 7"), std::string::npos);
}

// Shapes and dtypes are checked when the trace opens (every dataset present against the
// attributes), so each bad dataset makes open() fail, naming it.
TEST_F(BadInput, WrongShapesAndDtypes) {
    struct Case {
        const char* path;
        hid_t type;
        std::vector<hsize_t> dims;
        const char* words;
    };
    const Case cases[] = {
        {"/tokens/ids", H5T_NATIVE_INT32, {301}, "found int32 [301]"},
        {"/per_token/loss", H5T_NATIVE_INT32, {300}, "wrong dtype"},
        {"/layers/000/gates/log_retention",
         H5T_NATIVE_FLOAT,
         {3, 300, 2},
         "expected float32 [3, 300, 1]"},
        {"/layers/000/factors/q", H5T_NATIVE_DOUBLE, {3, 300, 5}, "found float64"},
        {"/layers/001/factors/k", H5T_NATIVE_FLOAT, {3, 299, 5}, "[3, 299, 5]"},
        {"/layers/000/pyramid/attention/max/0", H5T_NATIVE_FLOAT, {3, 299, 299}, "wrong shape"},
    };
    int index = 0;
    for (const Case& c : cases) {
        auto path = edited("shapes-" + std::to_string(index++) + ".h5", [&](hid_t file) {
            EXPECT_GE(H5Ldelete(file, c.path, H5P_DEFAULT), 0);
            hid_t space = H5Screate_simple(static_cast<int>(c.dims.size()), c.dims.data(), nullptr);
            hid_t ds =
                H5Dcreate2(file, c.path, c.type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            EXPECT_GE(ds, 0);
            H5Dclose(ds);
            H5Sclose(space);
        });
        auto reader = TraceReader::open(path);
        ASSERT_FALSE(reader) << c.path;
        expectError(reader.error(), ErrorKind::Shape, path, c.path, c.words);
    }
}

TEST_F(BadInput, OutOfRangeRequests) {
    auto reader = TraceReader::open(good);
    ASSERT_TRUE(reader);
    const TraceReader& r = **reader;
    for (auto result : {r.factor(0, "q", 3, 0, 1), r.factor(0, "k", 1, 0, 1),  // k has 1 kv head
                        r.factor(0, "q", 0, -1, 1), r.factor(0, "q", 0, 5, 4),
                        r.factor(0, "q", 0, 0, 301), r.gatesForHead(1, -1, 0, 1)}) {
        ASSERT_FALSE(result);
        EXPECT_EQ(result.error().kind, ErrorKind::Usage) << result.error().describe();
    }
    int64_t tiles = tilesPerSide(300, 0);
    for (auto result : {r.pyramidTile(0, "attention", Pool::Max, 0, 3, 0, 0),
                        r.pyramidTile(0, "attention", Pool::Max, 0, 0, tiles, 0),
                        r.pyramidTile(0, "attention", Pool::Max, 0, 0, 0, -1)}) {
        ASSERT_FALSE(result);
        EXPECT_EQ(result.error().kind, ErrorKind::Usage) << result.error().describe();
    }
    auto level = r.pyramidTile(0, "attention", Pool::Max, 9, 0, 0, 0);
    ASSERT_FALSE(level);
    EXPECT_EQ(level.error().kind, ErrorKind::Missing);
    auto map = r.pyramidTile(0, "nope", Pool::Max, 0, 0, 0, 0);
    ASSERT_FALSE(map);
    EXPECT_EQ(map.error().kind, ErrorKind::Missing);
    auto empty = r.factor(0, "q", 0, 7, 7);  // an empty range is fine
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->values.empty());
}

}  // namespace
}  // namespace gatescope::data
