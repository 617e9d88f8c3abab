// BackgroundFlush: flushes a file as it grows, reports a failed flush from stop(), and refuses a
// path it cannot open.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "data/common/background_flush.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

fs::path freshFile(const char* name) {
    const fs::path path =
        fs::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
    fs::remove(path);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::close(fd);
    return path;
}

/// Appends `bytes` of a pattern in 64 KiB writes; returns false on a short write.
bool append(const fs::path& path, size_t bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    if (fd < 0) return false;
    std::vector<char> block(64 << 10);
    for (size_t i = 0; i < block.size(); ++i)
        block[i] = static_cast<char>(i * 31 + 7);
    bool ok = true;
    for (size_t done = 0; ok && done < bytes; done += block.size())
        ok = ::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size());
    ::close(fd);
    return ok;
}

/// Waits up to five seconds for `flush` to have begun `count` flushes.
bool waitForFlushes(const BackgroundFlush& flush, int count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (flush.flushes() < count && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return flush.flushes() >= count;
}

TEST(BackgroundFlush, FlushesEachStepOfGrowthAndKeepsTheBytes) {
    const fs::path path = freshFile("gatescope-background-flush.bin");
    auto flush = BackgroundFlush::start(path, 1 << 20);
    ASSERT_TRUE(flush) << flush.error().describe();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ((*flush)->flushes(), 0) << "an empty file is not flushed";
    ASSERT_TRUE(append(path, 1 << 20));
    EXPECT_TRUE(waitForFlushes(**flush, 1));
    ASSERT_TRUE(append(path, 2 << 20));
    EXPECT_TRUE(waitForFlushes(**flush, 2));
    EXPECT_TRUE((*flush)->stop());
    EXPECT_TRUE((*flush)->stop()) << "stop is idempotent";
    EXPECT_EQ(fs::file_size(path), 3u << 20);
    fs::remove(path);
}

TEST(BackgroundFlush, StopReturnsTheFirstFailedFlush) {
    const fs::path path = freshFile("gatescope-background-flush-fails.bin");
    static int calls = 0;
    calls = 0;
    auto failing = [](int) {
        ++calls;
        errno = EIO;
        return -1;
    };
    auto flush = BackgroundFlush::start(path, 1 << 20, failing);
    ASSERT_TRUE(flush);
    ASSERT_TRUE(append(path, 2 << 20));
    ASSERT_TRUE(waitForFlushes(**flush, 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto stopped = (*flush)->stop();
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().kind, ErrorKind::Io);
    EXPECT_EQ(stopped.error().file, path.string());
    EXPECT_NE(stopped.error().message.find("Input/output error"), std::string::npos)
        << stopped.error().message;
    EXPECT_EQ(calls, 1) << "the thread ends at the first failure";
    fs::remove(path);
}

TEST(BackgroundFlush, RefusesAPathItCannotOpen) {
    const fs::path path = fs::temp_directory_path() / "gatescope-no-such-folder" / "trace.h5";
    auto flush = BackgroundFlush::start(path);
    ASSERT_FALSE(flush);
    EXPECT_EQ(flush.error().kind, ErrorKind::Io);
    EXPECT_EQ(flush.error().file, path.string());
}

}  // namespace
}  // namespace gatescope::data
