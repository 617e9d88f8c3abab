// writeFileAtomically and commitFile: the target holds the old bytes or the new ones, never a
// part, and no temporary file is left behind, whatever fails. Write failures are real ones: a
// file-size limit (RLIMIT_FSIZE, EFBIG) in a forked child, as a full disk would fail a write.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "data/common/atomic_file.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

namespace fs = std::filesystem;

int entries(const fs::path& dir) {
    return static_cast<int>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, ReplacesWholeAndLeavesNoTemporary) {
    testing::TempDir tmp;
    const auto target = tmp / "summary.json";
    ASSERT_TRUE(writeFileAtomically(target, "old"));
    ASSERT_TRUE(writeFileAtomically(target, std::string(100000, 'n')));
    EXPECT_EQ(testing::readBytes(target), std::string(100000, 'n'));
    EXPECT_EQ(entries(tmp.path()), 1);
    EXPECT_EQ(partialPath(target).parent_path(), tmp.path());
    EXPECT_TRUE(partialPath(target).filename().string().starts_with("summary.json.partial-"));
}

TEST(AtomicFile, FailedWriteKeepsTheOldFile) {
    testing::TempDir tmp;
    const auto target = tmp / "table.csv";
    ASSERT_TRUE(writeFileAtomically(target, "old"));
    const pid_t child = ::fork();
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        auto st = writeFileAtomically(target, std::string(1 << 20, 'x'));
        const bool named = !st && st.error().kind == ErrorKind::Io &&
                           st.error().file == target.string() &&
                           st.error().message.find("cannot write the file") != std::string::npos;
        ::_exit(st ? 0 : named ? 1 : 2);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << "2: an error that does not name the file";
    EXPECT_EQ(testing::readBytes(target), "old");
    EXPECT_EQ(entries(tmp.path()), 1) << "a temporary file was left behind";
}

TEST(AtomicFile, CommitIntoAMissingFolderIsAnErrorAndRemovesTheTemporary) {
    testing::TempDir tmp;
    const auto temp = tmp / "trace.h5.partial-1";
    std::ofstream(temp) << "finished";
    const auto target = tmp / "no-such-folder" / "trace.h5";
    auto st = commitFile(temp, target);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().kind, ErrorKind::Io);
    EXPECT_EQ(st.error().file, target.string());
    EXPECT_NE(st.error().message.find("cannot rename into place"), std::string::npos);
    EXPECT_FALSE(fs::exists(temp));

    std::ofstream(temp) << "finished";
    ASSERT_TRUE(commitFile(temp, tmp / "trace.h5"));
    EXPECT_EQ(testing::readBytes(tmp / "trace.h5"), "finished");
    EXPECT_FALSE(fs::exists(temp));
}

}  // namespace
}  // namespace gatescope::data
