// Crash safety: a writer killed midway (SIGKILL in a child process) or failing on a full disk
// leaves no file under the final name.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "data/trace/trace_reader.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

// Child side: writes a big trace slowly, tile by tile. Never returns.
[[noreturn]] void writeSlowly(const std::filesystem::path& path) {
    auto s = testing::makeSample(20000, 5);
    auto w = TraceWriter::create(path);
    if (!w) _exit(2);
    if (!(*w)->writeManifest(s.manifest) || !(*w)->writeTokens(s.tokens)) _exit(3);
    if (!(*w)->writeLayer(0, s.layers[0].header)) _exit(4);
    PyramidLevels levels = defaultPyramidLevels(20000, 20000);
    if (!(*w)->createPyramid(0, "attention", levels, 3)) _exit(5);
    std::vector<float> tile(kTileSide * kTileSide, 0.5f);
    for (int64_t tr = 0; tr < tilesPerSide(20000, 0); ++tr)
        for (int64_t tc = 0; tc <= tr; ++tc) {
            if (!(*w)->writePyramidTile(0, "attention", Pool::Max, 0, 0, tr, tc, tile.data()))
                _exit(6);
            usleep(2000);
        }
    _exit(7);  // finished without being killed: the test failed to kill in time
}

TEST(KilledWriter, SigkillMidwayLeavesNoFinalFile) {
    testing::TempDir dir;
    auto path = dir / "killed.h5";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) writeSlowly(path);
    std::filesystem::path temp = path.string() + ".partial-" + std::to_string(child);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(temp) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(std::filesystem::exists(temp)) << "the child never started writing";
    // Let it get well into the tiles, so the file is large and mid-write.
    auto size = std::filesystem::file_size(temp);
    while (std::filesystem::file_size(temp) < size + (256 << 10) &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(std::filesystem::exists(temp));  // the partial file is what a kill leaves
    auto reader = TraceReader::open(path);
    ASSERT_FALSE(reader);
    EXPECT_EQ(reader.error().kind, ErrorKind::Io);
}

// A full disk, simulated by a file-size limit in a child: writes fail with EFBIG. The pyramid
// goes out tile by tile (writePyramidTile) or a whole level at a time (writePyramidLevel, whose
// chunks are compressed on several threads).
void expectFullDiskFailsCleanly(bool wholeLevels) {
    testing::TempDir dir;
    auto path = dir / "full.h5";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        rlimit limit{512 << 10, 512 << 10};
        setrlimit(RLIMIT_FSIZE, &limit);
        auto s = testing::makeSample(3000, 6);
        auto w = TraceWriter::create(path);
        if (!w) _exit(2);
        Status rc = (*w)->writeManifest(s.manifest);
        if (rc) rc = (*w)->writeTokens(s.tokens);
        if (rc) rc = (*w)->writePerToken(s.perToken);
        if (rc) rc = (*w)->writeLayer(0, s.layers[0].header);
        for (const auto& [name, f] : s.layers[0].factors)  // levels: the pyramid must hit it
            if (rc && !wholeLevels) rc = (*w)->writeFactor(0, name, f.values.data(), f.shape);
        std::vector<float> tile(kTileSide * kTileSide);
        for (size_t i = 0; i < tile.size(); ++i)
            tile[i] = static_cast<float>(i * 2654435761u % 1000);
        if (rc) rc = (*w)->createPyramid(0, "attention", {0, 0}, 3);
        if (wholeLevels) {
            std::vector<float> level(3000 * 3000);
            for (size_t i = 0; i < level.size(); ++i)
                level[i] = static_cast<float>(i * 2654435761u % 1000);
            for (int h = 0; rc && h < 3; ++h)
                rc = (*w)->writePyramidLevel(0, "attention", Pool::Max, 0, h, level.data());
        }
        for (int64_t tr = 0; rc && !wholeLevels && tr < tilesPerSide(3000, 0); ++tr)
            for (int64_t tc = 0; rc && tc <= tr; ++tc)
                for (int h = 0; rc && h < 3; ++h)
                    rc = (*w)->writePyramidTile(0, "attention", Pool::Max, 0, h, tr, tc,
                                                tile.data());
        if (rc) rc = (*w)->commit();
        if (rc) _exit(10);  // everything fit: the limit did not bite
        std::fprintf(stderr, "    error: %s\n", rc.error().describe().c_str());
        if (rc.error().kind != ErrorKind::Io) _exit(11);
        if (wholeLevels && rc.error().object.find("pyramid") == std::string::npos) _exit(15);
        if (std::filesystem::exists((*w)->tempPath())) _exit(12);
        if (std::filesystem::exists(path)) _exit(13);
        if ((*w)->writeLayer(1, s.layers[1].header)) _exit(14);  // the writer stays failed
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(KilledWriter, WriteFailureIsAnErrorAndRemovesTheTemporaryFile) {
    expectFullDiskFailsCleanly(false);
}

TEST(KilledWriter, WriteFailureOfAWholeLevelIsAnErrorAndRemovesTheTemporaryFile) {
    expectFullDiskFailsCleanly(true);
}

}  // namespace
}  // namespace gatescope::data
