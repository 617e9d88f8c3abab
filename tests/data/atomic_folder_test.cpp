// writeFilesAtomically: a set of tables appears whole or not at all, and a failed write keeps
// what the folder held. Write failures are real ones: a file-size limit (RLIMIT_FSIZE, EFBIG) in
// a forked child, as a full disk would fail a write.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "data/common/atomic_folder.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> listing(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Runs writeFilesAtomically in a child whose files may not grow past `limitBytes`; returns its
// exit code (0 ok, 1 error).
int writeUnderLimit(const fs::path& dir, const std::vector<NamedFile>& files, rlim_t limitBytes) {
    const pid_t child = ::fork();
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{limitBytes, limitBytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        ::_exit(writeFilesAtomically(dir, files) ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(AtomicFolder, WritesANewFolderWhole) {
    testing::TempDir tmp;
    const auto dir = tmp / "tables";
    ASSERT_TRUE(writeFilesAtomically(dir, {{"a.csv", "x\n1\n"}, {"b.csv", "y\n2\n"}}));
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"a.csv", "b.csv"}));
    EXPECT_EQ(testing::readBytes(dir / "b.csv"), "y\n2\n");
    EXPECT_EQ(listing(tmp.path()), std::vector<std::string>{"tables"});  // no partial folder
}

TEST(AtomicFolder, ReplacesNamesakesAndKeepsOtherFiles) {
    testing::TempDir tmp;
    const auto dir = tmp / "tables";
    fs::create_directories(dir);
    std::ofstream(dir / "a.csv") << "old";
    std::ofstream(dir / "notes.txt") << "mine";
    ASSERT_TRUE(writeFilesAtomically(dir, {{"a.csv", "new"}, {"b.csv", "b"}}));
    EXPECT_EQ(listing(dir), (std::vector<std::string>{"a.csv", "b.csv", "notes.txt"}));
    EXPECT_EQ(testing::readBytes(dir / "a.csv"), "new");
    EXPECT_EQ(testing::readBytes(dir / "notes.txt"), "mine");
    EXPECT_EQ(listing(tmp.path()), std::vector<std::string>{"tables"});
}

TEST(AtomicFolder, AFailedWriteLeavesNoTablesAndKeepsTheOldOnes) {
    testing::TempDir tmp;
    // The first table fits under the limit, the second does not: the old code left the first.
    const std::vector<NamedFile> files = {{"small.csv", std::string(1000, 's')},
                                          {"big.csv", std::string(200000, 'b')}};
    const auto fresh = tmp / "fresh";
    EXPECT_EQ(writeUnderLimit(fresh, files, 100000), 1);
    EXPECT_FALSE(fs::exists(fresh));
    const auto kept = tmp / "kept";
    fs::create_directories(kept);
    std::ofstream(kept / "small.csv") << "old small";
    EXPECT_EQ(writeUnderLimit(kept, files, 100000), 1);
    EXPECT_EQ(listing(kept), std::vector<std::string>{"small.csv"});
    EXPECT_EQ(testing::readBytes(kept / "small.csv"), "old small");
    EXPECT_EQ(listing(tmp.path()), (std::vector<std::string>{"kept"}));  // no partial folder
    EXPECT_EQ(writeUnderLimit(kept, files, 1 << 20), 0);
    EXPECT_EQ(testing::readBytes(kept / "big.csv").size(), 200000u);
}

TEST(AtomicFolder, RefusesNamesThatLeaveTheFolder) {
    testing::TempDir tmp;
    auto st = writeFilesAtomically(tmp / "t", {{"../escape.csv", "x"}});
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().kind, ErrorKind::Usage);
    EXPECT_FALSE(fs::exists(tmp / "escape.csv"));
    EXPECT_FALSE(fs::exists(tmp / "t"));
}

}  // namespace
}  // namespace gatescope::data
