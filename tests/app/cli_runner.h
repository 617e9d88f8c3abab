// Test support: runs the real `gatescope` executable and captures its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace gatescope::test {

struct CliResult {
    int exitCode = -1;
    std::string out;  ///< stdout
    std::string err;  ///< stderr
};

/// Runs a shell command line with stdin from /dev/null, capturing stdout and stderr.
inline CliResult runShell(const std::string& commandLine, const TempDir& tmp) {
    const auto outFile = tmp / "stdout.txt", errFile = tmp / "stderr.txt";
    const std::string command =
        "{ " + commandLine + "; } >" + outFile.string() + " 2>" + errFile.string() + " </dev/null";
    const int status = std::system(command.c_str());
    CliResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = readFile(outFile);
    result.err = readFile(errFile);
    return result;
}

/// Runs `gatescope ARGS` through the shell (ARGS is shell-quoted by the caller).
inline CliResult runCli(const std::string& args, const TempDir& tmp) {
    return runShell(std::string(GATESCOPE_CLI) + " " + args, tmp);
}

inline std::string quoted(const std::filesystem::path& path) {
    return "'" + path.string() + "'";
}

/// Writes token ids as a whitespace-separated `input.ids` in `tmp` (for `--input-kind ids`).
template <class Id>
std::filesystem::path writeIds(const TempDir& tmp, const std::vector<Id>& ids) {
    const auto path = tmp / "input.ids";
    std::ofstream out(path);
    for (auto id : ids)
        out << id << ' ';
    return path;
}

}  // namespace gatescope::test
