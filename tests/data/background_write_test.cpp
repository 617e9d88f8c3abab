// The background-write driver of files gatescope creates: chunks handed over are written by the
// file's I/O thread, read back exactly (before and after closing), and a failed background write
// reaches the caller by a later call, naming the file and the reason.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/h5/dataset.h"
#include "data/h5/file.h"
#include "trace_test_util.h"

// Named: the tests build as one unity source, where anonymous namespaces merge.
namespace gatescope::data::h5::background_write_test {
namespace {

constexpr hsize_t kChunkRows = 256, kCols = 256;  // 256 KiB of float32 a chunk
constexpr size_t kChunkBytes = kChunkRows * kCols * 4;

std::vector<float> randomValues(size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> values(count);
    for (auto& v : values)
        v = normal(rng);
    return values;
}

/// An uncompressed chunked dataset of `chunks` chunks stacked along rows.
Dataset makeDataset(File& file, hsize_t chunks) {
    auto root = Group::root(file);
    const Type f32 = Type::nativeFloat();
    auto dcpl = PropertyList::chunkedDataset({kChunkRows, kCols}, Compression::None, 0, f32, {});
    return Dataset::create(*root, "d", f32, {chunks * kChunkRows, kCols}, *dcpl).value();
}

/// Hands chunk `c` of `values` to the dataset as bytes it gives up.
Status writeChunk(Dataset& dataset, const std::vector<float>& values, hsize_t c) {
    std::vector<unsigned char> bytes(kChunkBytes);
    std::memcpy(bytes.data(), values.data() + c * kChunkRows * kCols, kChunkBytes);
    return dataset.writeRawChunk({c * kChunkRows, 0}, std::move(bytes));
}

// More chunks than the driver queues (32 MiB), so that handing over waits for room too.
TEST(BackgroundWrites, HandedOverChunksReadBackExactly) {
    testing::TempDir dir;
    const std::string path = (dir / "handed.h5").string();
    constexpr hsize_t kChunks = 160;  // 40 MiB
    const auto values = randomValues(kChunks * kChunkRows * kCols, 7);
    {
        File file = File::create(path).value();
        Dataset dataset = makeDataset(file, kChunks);
        for (hsize_t c = 0; c < kChunks; ++c)
            ASSERT_TRUE(writeChunk(dataset, values, c)) << c;
        // Read while chunks may still be queued: the driver lets the read wait for them.
        std::vector<float> early(values.size(), -1.0f);
        ASSERT_TRUE(dataset.read(Type::nativeFloat(), early.data()));
        EXPECT_EQ(early, values);
        ASSERT_TRUE(file.flush());
        ASSERT_TRUE(file.close());
    }
    File file = File::openReadOnly(path, 0).value();
    auto root = Group::root(file);
    Dataset dataset = Dataset::open(*root, "d").value();
    std::vector<float> read(values.size(), -1.0f);
    ASSERT_TRUE(dataset.read(Type::nativeFloat(), read.data()));
    EXPECT_EQ(read, values);
}

/// Lowers this process's file-size limit (SIGXFSZ ignored: writes past it fail with EFBIG) for
/// its lifetime.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &m_saved);
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = m_saved;
        lowered.rlim_cur = bytes;
        m_set = setrlimit(RLIMIT_FSIZE, &lowered) == 0;
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_handler);
    }
    bool set() const { return m_set; }

private:
    rlimit m_saved{};
    void (*m_handler)(int) = SIG_DFL;
    bool m_set = false;
};

// Chunks 0-7 end past 2 MiB: their writes are queued and return at once (a write in place would
// fail at chunk 7); the failure comes back from a later write or the flush, as an Io error naming
// the file and errno's text. The file can then still be abandoned and closed.
TEST(BackgroundWrites, FailedBackgroundWriteIsReportedLaterAndNamesTheFile) {
    testing::TempDir dir;
    const std::string path = (dir / "limited.h5").string();
    constexpr hsize_t kChunks = 16;
    const auto values = randomValues(kChunks * kChunkRows * kCols, 8);
    File file = File::create(path).value();
    Dataset dataset = makeDataset(file, kChunks);
    Status failed = Ok{};
    {
        FileSizeLimit limit(2 << 20);
        ASSERT_TRUE(limit.set());
        for (hsize_t c = 0; c < 8; ++c)
            ASSERT_TRUE(writeChunk(dataset, values, c)) << c;
        for (hsize_t c = 8; c < kChunks && failed; ++c)
            failed = writeChunk(dataset, values, c);
        if (failed) failed = file.flush();
        ASSERT_FALSE(failed);
        // Sticky: the file does not pretend to be whole afterwards.
        EXPECT_FALSE(file.flush());
    }
    EXPECT_EQ(failed.error().kind, ErrorKind::Io);
    EXPECT_NE(failed.error().message.find("File too large"), std::string::npos)
        << failed.error().describe();
    EXPECT_NE(failed.error().describe().find("limited.h5"), std::string::npos)
        << failed.error().describe();
    EXPECT_TRUE(file.detachFromDisk());
    dataset = Dataset();
    EXPECT_TRUE(file.close());
}

}  // namespace
}  // namespace gatescope::data::h5::background_write_test
