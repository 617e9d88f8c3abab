// The CLI skeleton: help, version, usage errors, and `info` on good and bad traces.
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

TEST(Cli, HelpListsEverySubcommand) {
    test::TempDir tmp;
    auto r = runCli("--help", tmp);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    for (const char* name : {"trace", "info", "demo"}) {
        EXPECT_NE(r.out.find(name), std::string::npos) << name << " missing from:\n" << r.out;
    }
}

TEST(Cli, VersionPrintsVersionAndRevision) {
    test::TempDir tmp;
    auto r = runCli("--version", tmp);
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("gatescope 0."), std::string::npos) << r.out;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
    test::TempDir tmp;
    auto r = runCli("frobnicate", tmp);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_FALSE(r.err.empty());
}

TEST(Cli, MissingRequiredOptionIsAUsageError) {
    test::TempDir tmp;
    auto r = runCli("trace --input x.txt", tmp);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
}

TEST(Cli, InfoOnMissingFileNamesIt) {
    test::TempDir tmp;
    auto r = runCli("info " + quoted(tmp / "nope.h5"), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("nope.h5"), std::string::npos) << r.err;
}

TEST(Cli, InfoOnNonHdf5FileNamesItAndSaysWhy) {
    test::TempDir tmp;
    const auto path = tmp / "junk.h5";
    std::ofstream(path) << "this is not an HDF5 file at all, just text\n";
    auto r = runCli("info " + quoted(path), tmp);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("junk.h5"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("HDF5"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
