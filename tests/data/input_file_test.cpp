// data/common/input_file.h: only regular files are read, never past a cap, and never blocking on a
// FIFO or reading a device forever.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "data/common/input_file.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("gatescope-input-" + std::to_string(::getpid()));
    Scratch() { fs::create_directories(dir); }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

TEST(InputFile, ReadsRegularFilesAndTheirSize) {
    Scratch s;
    std::ofstream(s.dir / "a.txt") << "hello";
    auto text = readRegularFile(s.dir / "a.txt", 1024);
    ASSERT_TRUE(text) << text.error().describe();
    EXPECT_EQ(*text, "hello");
    auto file = InputFile::open(s.dir / "a.txt");
    ASSERT_TRUE(file);
    EXPECT_EQ(file->size(), 5u);
    EXPECT_TRUE(checkRegularFile(s.dir / "a.txt"));
}

TEST(InputFile, RefusesFifosDevicesAndFoldersWithoutBlocking) {
    Scratch s;
    ASSERT_EQ(::mkfifo((s.dir / "fifo").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", s.dir / "zero-link");
    const auto start = std::chrono::steady_clock::now();
    const std::pair<fs::path, const char*> cases[] = {{s.dir / "fifo", "(FIFO)"},
                                                      {"/dev/zero", "(character device)"},
                                                      {"/dev/urandom", "(character device)"},
                                                      {s.dir / "zero-link", "(character device)"},
                                                      {s.dir, "(directory)"}};
    for (const auto& [path, type] : cases) {
        auto text = readRegularFile(path, 1 << 20);
        ASSERT_FALSE(text) << path;
        EXPECT_EQ(text.error().kind, ErrorKind::Io);
        EXPECT_EQ(text.error().file, path.string());
        EXPECT_NE(text.error().message.find(std::string("not a regular file ") + type),
                  std::string::npos)
            << text.error().message;
        EXPECT_FALSE(InputFile::open(path));
        EXPECT_FALSE(checkRegularFile(path));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    auto missing = readRegularFile(s.dir / "nope", 10);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
}

TEST(InputFile, RefusesFilesAboveTheCapBeforeReading) {
    Scratch s;
    {
        // A sparse 3 GiB file: its size is known from fstat, nothing is allocated or read.
        std::ofstream(s.dir / "big.json") << "{";
        fs::resize_file(s.dir / "big.json", uint64_t{3} << 30);
    }
    auto text = readRegularFile(s.dir / "big.json", input_limits::kConfigJson, "a config.json");
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().kind, ErrorKind::Format);
    EXPECT_EQ(text.error().file, (s.dir / "big.json").string());
    EXPECT_NE(text.error().message.find("3.0 GiB"), std::string::npos) << text.error().message;
    EXPECT_NE(text.error().message.find("64.0 MiB"), std::string::npos) << text.error().message;
    EXPECT_NE(text.error().message.find("a config.json"), std::string::npos);
}

TEST(InputFile, FormatsByteCounts) {
    EXPECT_EQ(formatBytes(10), "10 bytes");
    EXPECT_EQ(formatBytes(1536), "1.5 KiB");
    EXPECT_EQ(formatBytes(uint64_t{64} << 20), "64.0 MiB");
}

}  // namespace
}  // namespace gatescope::data
