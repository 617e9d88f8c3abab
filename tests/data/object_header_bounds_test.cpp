// Object headers bounded before HDF5 1.10 loads them (data/h5/access.h, superblock_check.h).
// HDF5's metadata cache allocates a header's chunks at the sizes the header states before it
// reads them; a fuzzed trace drove `gatescope info` to 21 GB that way. Headers reached through a
// link are now walked raw first, and the root group's header (which HDF5 loads while opening the
// file) is walked by the checking driver when it opens the file.
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "data/h5/library.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

/// The file address of the object header of `object` in the HDF5 file at `path`.
haddr_t headerAddress(const fs::path& path, const char* object) {
    auto lock = h5::lockLibrary();
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(file, 0) << path;
    H5O_info_t info{};
    EXPECT_GE(H5Oget_info_by_name2(file, object, &info, H5O_INFO_BASIC, H5P_DEFAULT), 0) << object;
    H5Fclose(file);
    return info.addr;
}

void putLittleEndian(std::string& bytes, size_t at, uint64_t value, size_t width) {
    ASSERT_LE(at + width, bytes.size());
    for (size_t b = 0; b < width; ++b)
        bytes[at + b] = static_cast<char>(value >> (8 * b));
}

/// Offset in `bytes` of the first continuation message's length in the version-1 object header
/// at `address` (gatescope writes version-1 headers with 8-byte addresses and lengths).
size_t continuationLengthAt(const std::string& bytes, size_t address) {
    EXPECT_EQ(static_cast<uint8_t>(bytes.at(address)), 1) << "a version-1 header";
    auto field = [&](size_t at, size_t width) {
        uint64_t v = 0;
        for (size_t b = width; b-- > 0;)
            v = v << 8 | static_cast<uint8_t>(bytes.at(at + b));
        return v;
    };
    const size_t end = address + 16 + field(address + 8, 4);
    for (size_t at = address + 16; at + 8 <= end; at += 8 + field(at + 2, 2))
        if (field(at, 2) == 0x0010) return at + 8 + 8;
    ADD_FAILURE() << "no continuation message in the header at " << address;
    return 0;
}

class ObjectHeaderBounds : public ::testing::Test {
protected:
    void SetUp() override {
        auto rc = testing::writeSample(testing::makeSample(300, 33), good);
        ASSERT_TRUE(rc) << rc.error().describe();
        bytes = test::readFile(good);
    }

    /// Opens the edited bytes from disk and from an image; both must be refused naming `object`
    /// (and the file) with `words`.
    void expectRefused(const std::string& object, const std::string& words) {
        const fs::path path = dir / "edited.h5";
        test::writeFile(path, bytes);
        auto fromDisk = TraceReader::open(path);
        auto fromImage = TraceReader::openImage("image.h5", bytes.data(), bytes.size());
        for (auto* reader : {&fromDisk, &fromImage}) {
            ASSERT_FALSE(*reader);
            const Error& e = reader->error();
            EXPECT_EQ(e.kind, ErrorKind::Format) << e.describe();
            EXPECT_EQ(e.object, object) << e.describe();
            EXPECT_NE(e.message.find(words), std::string::npos) << e.describe();
            std::cout << "    " << e.describe() << "\n";
        }
        EXPECT_EQ(fromDisk.error().file, path.string());
        EXPECT_EQ(fromImage.error().file, "image.h5");
    }

    testing::TempDir dir;
    fs::path good = dir / "good.h5";
    std::string bytes;
};

TEST_F(ObjectHeaderBounds, TheUneditedSampleOpens) {
    auto reader = TraceReader::openImage("image.h5", bytes.data(), bytes.size());
    ASSERT_TRUE(reader) << reader.error().describe();
}

// The fuzz input: /tokens/ids's header continues in a chunk of about 4 GB.
TEST_F(ObjectHeaderBounds, TheFuzzedTraceIsRefusedWithoutGigabytes) {
    const fs::path input =
        fs::path(GATESCOPE_SOURCE_DIR) / "fuzz/regressions/trace_reader/oom-metadata-cache-21gb.h5";
    bytes = test::readFile(input);
    ASSERT_FALSE(bytes.empty()) << input;
    expectRefused("/tokens/ids", "too many or too large chunks");
}

TEST_F(ObjectHeaderBounds, ADatasetHeaderChunkOfGigabytesIsRefused) {
    const haddr_t ids = headerAddress(good, "tokens/ids");
    putLittleEndian(bytes, ids + 8, 0xFFFFFF00u, 4);
    expectRefused("/tokens/ids", "too many or too large chunks");
}

TEST_F(ObjectHeaderBounds, ADatasetHeaderChunkUnderTheBoundButPastTheFileIsRefused) {
    const haddr_t ids = headerAddress(good, "tokens/ids");
    ASSERT_LT(bytes.size(), 32u << 20);
    putLittleEndian(bytes, ids + 8, 32u << 20, 4);  // under the 64 MiB bound, past this file
    expectRefused("/tokens/ids", "runs past the end of the file");
}

// HDF5 loads the root group's header (with its continuation chunks) inside H5Fopen, before any
// check on an open file can run; the checking driver walks it when HDF5 opens the file.
TEST_F(ObjectHeaderBounds, ARootGroupContinuationOfTerabytesIsRefusedAtOpen) {
    const haddr_t root = headerAddress(good, "/");
    const size_t length = continuationLengthAt(bytes, root);
    ASSERT_NE(length, 0u);
    putLittleEndian(bytes, length, uint64_t{1} << 46, 8);
    expectRefused("", "root group: an object header has too many or too large chunks");
}

// A fuzzed trace: a size near 2^64 wrapped the walk's running total past its bound, and the
// walk then tried to allocate it (std::length_error, abort).
TEST_F(ObjectHeaderBounds, AChunkSizeNear2To64DoesNotWrapTheBound) {
    const haddr_t root = headerAddress(good, "/");
    const size_t length = continuationLengthAt(bytes, root);
    ASSERT_NE(length, 0u);
    putLittleEndian(bytes, length, ~uint64_t{0} - 100, 8);
    expectRefused("", "root group: an object header has too many or too large chunks");
}

}  // namespace
}  // namespace gatescope::data
