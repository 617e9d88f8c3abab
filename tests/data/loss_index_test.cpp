// The batch loss index (data/index/loss_index.h): a virtual dataset whose sources stay inside its
// folder. Written indexes read back; sources outside the folder are refused on write, and an index
// forged to map other files is refused on read.
#include <gtest/gtest.h>

#include <cmath>

#include "data/index/loss_index.h"
#include "tests/data/hostile_edits.h"
#include "tests/data/raw_reads.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

class LossIndex : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(dir / "traces");
        for (auto [name, seed] : {std::pair{"traces/a.h5", 5u}, {"traces/b 100%b.h5", 6u}}) {
            auto rc = testing::writeSample(testing::makeSample(40, seed), dir / name);
            ASSERT_TRUE(rc) << rc.error().describe();
        }
    }
    testing::TempDir dir;
    const std::vector<LossIndexEntry> runs = {
        {"a", "traces/a.h5", 40}, {"skipped", "traces/a.h5", 0}, {"b", "traces/b 100%b.h5", 40}};
};

TEST_F(LossIndex, WrittenIndexReadsBack) {
    ASSERT_TRUE(writeLossIndex(dir / "index.h5", runs));
    auto back = readLossIndex(dir / "index.h5");
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_EQ(back->size(), 3u);
    EXPECT_EQ((*back)[2].trace, "traces/b 100%b.h5");  // '%' is escaped for HDF5, not a pattern
    EXPECT_EQ((*back)[2].nTokens, 40);
    EXPECT_EQ((*back)[1].nTokens, 0);

    // HDF5 itself reads the right files through the mappings ('%' taken literally).
    const auto a = testing::makeSample(40, 5).perToken.loss;
    const auto b = testing::makeSample(40, 6).perToken.loss;
    const auto values = test::readFloatMatrix(dir / "index.h5", "per_token_loss");
    ASSERT_EQ(values.rows, 3u);
    ASSERT_EQ(values.cols, 40u);
    ASSERT_NE(a[3], b[3]);
    EXPECT_EQ(values.at(2, 3), b[3]);
    EXPECT_EQ(values.at(0, 7), a[7]);
    EXPECT_TRUE(std::isnan(values.at(1, 7)));  // the run without tokens: fill value
}

TEST_F(LossIndex, SourcesOutsideTheFolderAreRefused) {
    fs::create_symlink("/etc", dir / "traces" / "etc");
    for (const fs::path& bad :
         {fs::path("/etc/passwd"), fs::path("../a.h5"), fs::path("traces/../../x.h5"),
          fs::path("traces/missing.h5"), fs::path("traces/etc/passwd")}) {
        auto st = writeLossIndex(dir / "index.h5", {{"r", bad, 40}});
        ASSERT_FALSE(st) << bad;
        EXPECT_EQ(st.error().kind, ErrorKind::Usage) << st.error().describe();
        EXPECT_EQ(st.error().file, bad.string());
        EXPECT_FALSE(fs::exists(dir / "index.h5"));
    }
}

// Linux file names are bytes; the index stores its mappings as JSON text, which holds UTF-8 only.
TEST_F(LossIndex, ANameThatIsNotUtf8IsAnErrorNotAnException) {
    const fs::path latin1 = fs::path("traces") / "caf\xE9.h5";
    fs::copy_file(dir / "traces" / "a.h5", dir / latin1);
    auto st = writeLossIndex(dir / "index.h5", {{"r", latin1, 40}});
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().kind, ErrorKind::Usage);
    EXPECT_NE(st.error().message.find("caf\\xE9.h5"), std::string::npos) << st.error().describe();
    st = writeLossIndex(dir / "index.h5", {{"r\xC3", "traces/a.h5", 40}});
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("r\\xC3"), std::string::npos) << st.error().describe();
    EXPECT_FALSE(fs::exists(dir / "index.h5"));
}

TEST_F(LossIndex, AForgedMappingIsRefusedOnRead) {
    ASSERT_TRUE(writeLossIndex(dir / "index.h5", runs));
    // Point the whole dataset at another file: an absolute path outside the folder.
    test::editTrace(dir / "index.h5", [](hid_t f) {
        EXPECT_GE(H5Ldelete(f, "per_token_loss", H5P_DEFAULT), 0);
        const hsize_t dims[2] = {3, 40}, row[2] = {1, 40}, n = 40;
        hid_t vspace = H5Screate_simple(2, dims, nullptr);
        hid_t src = H5Screate_simple(1, &n, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        const char* sources[] = {"traces/a.h5", "/etc/passwd.h5"};
        for (hsize_t r = 0; r < 2; ++r) {
            const hsize_t start[2] = {r * 2, 0};
            H5Sselect_hyperslab(vspace, H5S_SELECT_SET, start, nullptr, row, nullptr);
            EXPECT_GE(H5Pset_virtual(dcpl, vspace, sources[r], "/per_token/loss", src), 0);
        }
        H5Sselect_all(vspace);
        hid_t ds =
            H5Dcreate2(f, "per_token_loss", H5T_IEEE_F32LE, vspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        EXPECT_GE(ds, 0);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(src);
        H5Sclose(vspace);
    });
    auto back = readLossIndex(dir / "index.h5");
    ASSERT_FALSE(back);
    EXPECT_EQ(back.error().kind, ErrorKind::Format);
    EXPECT_EQ(back.error().object, "/per_token_loss");
    EXPECT_NE(back.error().message.find("mapping 1: source '/etc/passwd.h5'"), std::string::npos)
        << back.error().describe();
}

}  // namespace
}  // namespace gatescope::data
