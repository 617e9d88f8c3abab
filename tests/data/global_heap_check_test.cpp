// The checking file driver (data/h5/checked_driver.h): HDF5 1.10 loops forever on a global-heap
// collection whose free-space object has size 0, and reads outside its buffer when an object runs
// past the collection. Both are refused before HDF5 parses them, as an error naming the file.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "data/h5/checked_driver.h"
#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

// A collection of `size` bytes holding objects of the given sizes, then free space.
std::vector<uint8_t> collection(size_t size, const std::vector<uint64_t>& objects) {
    std::vector<uint8_t> bytes(size, 0);
    std::memcpy(bytes.data(), "GCOL\x01\0\0\0", 8);
    auto put64 = [&](size_t at, uint64_t value) {
        for (int i = 0; i < 8; ++i)
            bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
    };
    put64(8, size);
    size_t p = 16;
    uint16_t index = 1;
    for (uint64_t length : objects) {
        bytes[p] = static_cast<uint8_t>(index++);
        put64(p + 8, length);
        p += 16 + ((length + 7) & ~uint64_t{7});
    }
    if (p + 16 <= size) put64(p + 8, size - p);  // free space (index 0) to the end
    return bytes;
}

// Offset of the length field of the free-space object (index 0) of the collection at `at`.
size_t freeSpaceLengthAt(const std::string& file, size_t at) {
    size_t p = at + 16;
    while (true) {
        const unsigned index =
            static_cast<uint8_t>(file[p]) | (static_cast<uint8_t>(file[p + 1]) << 8);
        uint64_t length = 0;
        std::memcpy(&length, file.data() + p + 8, 8);
        if (index == 0) return p + 8;
        p += 16 + ((length + 7) & ~uint64_t{7});
    }
}

TEST(GlobalHeapCheck, SoundCollectionsPassAndBrokenOnesAreNamed) {
    std::string why;
    auto good = collection(4096, {15, 7, 1});
    EXPECT_TRUE(h5::globalHeapCollectionIsSound(good.data(), good.size(), why)) << why;

    auto loop = good;  // the free space (after 3 objects: 16 + 32 + 24 + 24 = 96) of size 0
    std::memset(loop.data() + 96 + 8, 0, 8);
    EXPECT_FALSE(h5::globalHeapCollectionIsSound(loop.data(), loop.size(), why));
    EXPECT_NE(why.find("object 0 at offset 96 claims 0 bytes"), std::string::npos) << why;

    auto past = collection(4096, {15, 5000});
    EXPECT_FALSE(h5::globalHeapCollectionIsSound(past.data(), past.size(), why));
    EXPECT_NE(why.find("claims 5000 bytes"), std::string::npos) << why;

    auto wrap = collection(4096, {15, ~uint64_t{0} - 20});  // 16 + align(size) wraps to ~0
    EXPECT_FALSE(h5::globalHeapCollectionIsSound(wrap.data(), wrap.size(), why));

    EXPECT_FALSE(h5::globalHeapCollectionIsSound(good.data(), 4000, why));  // size disagrees
}

TEST(GlobalHeapCheck, ALoopingCollectionInATraceIsAnErrorNotAHang) {
    testing::TempDir dir;
    const auto path = dir / "loop.h5";
    ASSERT_TRUE(testing::writeSample(testing::makeSample(20, 3), path));
    std::string bytes = [&] {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    // Every collection (they hold the string attributes) gets a free-space object of size 0.
    int broken = 0;
    for (size_t at = bytes.find("GCOL\x01", 0); at != std::string::npos;
         at = bytes.find("GCOL\x01", at + 1)) {
        std::memset(bytes.data() + freeSpaceLengthAt(bytes, at), 0, 8);
        ++broken;
    }
    ASSERT_GT(broken, 0);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

    const auto start = std::chrono::steady_clock::now();
    auto reader = TraceReader::open(path);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().file, path.string());
    EXPECT_NE(reader.error().message.find("corrupt global heap collection"), std::string::npos)
        << reader.error().describe();
    std::cout << "    error: " << reader.error().describe() << "\n";

    auto image = TraceReader::openImage("loop.h5", bytes.data(), bytes.size());
    ASSERT_FALSE(image);
    EXPECT_NE(image.error().message.find("corrupt global heap collection"), std::string::npos)
        << image.error().describe();
}

}  // namespace
}  // namespace gatescope::data
