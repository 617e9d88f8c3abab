// A trace that cannot be written: the CLI names the file and the reason, exits 1 (not a crash at
// exit from a file HDF5 could not close) and leaves neither the trace nor its temporary file.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/app/cli_runner.h"

namespace gatescope {
namespace {

using test::quoted;

constexpr const char* kDemo = "demo --headless --tokens 2048 --out";

TEST(WriteFailure, FileSizeLimitIsAnErrorNotACrash) {
    test::TempDir tmp;
    const auto out = tmp / "demo";
    // 20 MB holds the manifest and the first layers, not the whole FoX trace; with SIGXFSZ
    // ignored the limit makes write() fail with EFBIG.
    auto r = test::runShell(
        fmt::format("trap '' XFSZ; ulimit -f 20000; {} {} {}", GATESCOPE_CLI, kDemo, quoted(out)),
        tmp);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("fox.h5"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(out, ec))
        EXPECT_EQ(entry.path().string().find(".h5"), std::string::npos) << entry.path();
}

// A real full disk: a 20 MB tmpfs mounted in a private user and mount namespace (unshare -rm).
// Skipped where the machine does not allow that.
TEST(WriteFailure, FullDiskIsAnErrorAndLeavesNothing) {
    test::TempDir tmp;
    const auto mountPoint = tmp / "small";
    std::filesystem::create_directories(mountPoint);
    const auto script = tmp / "full_disk.sh", listing = tmp / "listing.txt";
    std::ofstream(script) << "mount -t tmpfs -o size=20m tmpfs \"$1\" || exit 99\n"
                          << "\"$2\" " << kDemo << " \"$1/demo\"\n"
                          << "rc=$?\nls -R \"$1\" > \"$3\"\nexit $rc\n";
    auto r = test::runShell(fmt::format("unshare -rm sh {} {} {} {}", quoted(script),
                                        quoted(mountPoint), GATESCOPE_CLI, quoted(listing)),
                            tmp);
    if (r.exitCode == 99 || r.err.find("unshare") != std::string::npos)
        GTEST_SKIP() << "cannot mount a tmpfs in a user namespace here: " << r.err;
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    const std::string left = test::readFile(listing);
    EXPECT_FALSE(left.empty());
    EXPECT_EQ(left.find(".h5"), std::string::npos) << left;
}

}  // namespace
}  // namespace gatescope
