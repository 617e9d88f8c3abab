// Test support: runs the real `gatescope` with a wall-clock limit and measures what it cost, so
// hostile-input tests can assert bounded time and memory, not only the exit code.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tests/app/cli_runner.h"

namespace gatescope::test {

struct BoundedResult : CliResult {
    double seconds = 0;     ///< wall-clock time
    long maxRssMb = 0;      ///< peak resident memory of the command (and its shell)
    bool timedOut = false;  ///< killed at the limit (exit code 137)
};

/// Runs `gatescope ARGS` (shell-quoted by the caller) under `timeout -s KILL limitSeconds`, in a
/// child of its own so its peak memory is measured alone (wait4).
inline BoundedResult runCliBounded(const std::string& args, const TempDir& tmp,
                                   int limitSeconds = 60) {
    const auto outFile = tmp / "stdout.txt", errFile = tmp / "stderr.txt";
    const std::string command = "timeout -s KILL " + std::to_string(limitSeconds) + " " +
                                GATESCOPE_CLI + " " + args + " >" + outFile.string() + " 2>" +
                                errFile.string() + " </dev/null";
    const auto start = std::chrono::steady_clock::now();
    BoundedResult result;
    const pid_t child = ::fork();
    if (child == 0) {
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    ::wait4(child, &status, 0, &usage);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.maxRssMb = usage.ru_maxrss / 1024;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.timedOut = result.exitCode == 137;
    result.out = readFile(outFile);
    result.err = readFile(errFile);
    return result;
}

}  // namespace gatescope::test
