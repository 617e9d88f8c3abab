// The batch loss index (data/index/loss_index.h) on files that are not what it wrote: truncated,
// missing a dataset or attribute, a plain dataset where the virtual one belongs, mappings HDF5
// stores but gatescope will not follow. Every error names the index file. And on writing: a batch
// of thousands of runs fits, and a failed write names the index, not its temporary file.
#include <gtest/gtest.h>

#include <string>

#include "data/common/atomic_file.h"
#include "data/index/loss_index.h"
#include "tests/data/hostile_edits.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

class LossIndexErrors : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(dir / "traces");
        auto rc = testing::writeSample(testing::makeSample(40, 7), dir / "traces/a.h5");
        ASSERT_TRUE(rc) << rc.error().describe();
        rc = writeLossIndex(index, {{"a", "traces/a.h5", 40}, {"again", "traces/a.h5", 40}});
        ASSERT_TRUE(rc) << rc.error().describe();
    }

    // readLossIndex must fail with `kind` naming the index (and `object` when given), its message
    // holding `words`.
    void expectRefused(ErrorKind kind, const std::string& object, const std::string& words) {
        auto back = readLossIndex(index);
        ASSERT_FALSE(back);
        const Error& e = back.error();
        EXPECT_EQ(e.kind, kind) << e.describe();
        EXPECT_EQ(e.file, index.string());
        if (!object.empty()) {
            EXPECT_EQ(e.object, object) << e.describe();
        }
        EXPECT_NE(e.message.find(words), std::string::npos) << e.describe();
    }

    testing::TempDir dir;
    const fs::path index = dir / "index.h5";
};

TEST_F(LossIndexErrors, TruncatedIndexIsAFormatError) {
    const auto size = fs::file_size(index);
    for (double fraction : {0.95, 0.5, 0.01}) {
        fs::resize_file(index, static_cast<uintmax_t>(size * fraction));
        expectRefused(ErrorKind::Format, "", "");
    }
}

TEST_F(LossIndexErrors, AbsentIndexIsAnIoError) {
    fs::remove(index);
    expectRefused(ErrorKind::Io, "", "no such file");
}

TEST_F(LossIndexErrors, MissingDatasetsAndAttributeAreNamed) {
    test::editTrace(index,
                    [](hid_t f) { EXPECT_GE(H5Ldelete(f, "per_token_loss", H5P_DEFAULT), 0); });
    expectRefused(ErrorKind::Missing, "/per_token_loss", "no such dataset");
    test::editTrace(index, [](hid_t f) { EXPECT_GE(H5Ldelete(f, "n_tokens", H5P_DEFAULT), 0); });
    expectRefused(ErrorKind::Missing, "/n_tokens", "no such dataset");
    test::editTrace(index, [](hid_t f) { EXPECT_GE(H5Adelete(f, "runs"), 0); });
    expectRefused(ErrorKind::Missing, "/@runs", "no such attribute");
}

TEST_F(LossIndexErrors, APlainDatasetIsNotAnIndex) {
    test::editTrace(index, [](hid_t f) {
        test::replaceWithChunked(f, "per_token_loss", {2, 40}, {1, 40});
    });
    expectRefused(ErrorKind::Format, "/per_token_loss", "not a virtual dataset");
}

TEST_F(LossIndexErrors, MappingsOfTheWrongShapeOrNameAreRefused) {
    // One-dimensional: maps no row.
    test::editTrace(index, [](hid_t f) {
        test::replaceWithVirtual(f, "per_token_loss", "traces/a.h5", "/per_token/loss", 40);
    });
    expectRefused(ErrorKind::Format, "/per_token_loss", "mapping 0: does not fill row 0");
    // A source name longer than any trace path gatescope writes is not even read.
    test::editTrace(index, [](hid_t f) {
        test::replaceWithVirtual(f, "per_token_loss", std::string(5000, 'a'), "/per_token/loss",
                                 40);
    });
    expectRefused(ErrorKind::Format, "/per_token_loss", "mapping 0: its source file name is 5000");
}

TEST_F(LossIndexErrors, ThousandsOfRunsFit) {
    // Their "runs" JSON is far beyond the 64 KiB a fixed-length string attribute may take.
    std::vector<LossIndexEntry> runs{{"first", "traces/a.h5", 40}};
    for (int r = 1; r < 3000; ++r)
        runs.push_back(
            {"a-run-with-a-long-descriptive-name-" + std::to_string(r), "traces/a.h5", 0});
    auto rc = writeLossIndex(index, runs);
    ASSERT_TRUE(rc) << rc.error().describe();
    auto back = readLossIndex(index);
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_EQ(back->size(), runs.size());
    EXPECT_EQ(back->back().run, runs.back().run);
    EXPECT_EQ(back->front().nTokens, 40);
}

TEST_F(LossIndexErrors, AFailedWriteNamesTheIndexAndLeavesNoTemporaryFile) {
    const fs::path other = dir / "other.h5";
    fs::create_directory(partialPath(other));  // HDF5 cannot create its temporary file
    auto rc = writeLossIndex(other, {{"a", "traces/a.h5", 40}});
    ASSERT_FALSE(rc);
    EXPECT_EQ(rc.error().kind, ErrorKind::Io) << rc.error().describe();
    EXPECT_EQ(rc.error().file, other.string());
    EXPECT_FALSE(fs::exists(other));
    EXPECT_FALSE(fs::exists(partialPath(other)));
}

}  // namespace
}  // namespace gatescope::data
