// Where `gatescope trace --out` may write: never over one of the run's own inputs, a device, a
// FIFO, a folder or a symbolic link; an existing trace is replaced only by a finished run, and a
// failed or interrupted run leaves it untouched (issue 29, the output side).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hostile_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
using test::quoted;

std::string traceArgs(const fs::path& model, const fs::path& input, const fs::path& out) {
    return fmt::format("trace --model {} --input {} --out {} --threads 1 --no-pyramids",
                       quoted(model), quoted(input), quoted(out));
}

TEST(TraceOutput, NeverReplacesItsOwnInputs) {
    test::TempDir tmp;
    const auto model = tmp / "model";
    test::copyBundledFox(model);
    std::ofstream(tmp / "in.txt") << "Gates forget, attention remembers.";
    fs::create_hard_link(tmp / "in.txt", tmp / "in-hardlink.h5");
    const std::pair<fs::path, std::string> cases[] = {
        {tmp / "in.txt", "the input"},
        {tmp / "in-hardlink.h5", "the input"},
        {model / "model.safetensors", "the checkpoint's weights"},
        {model / "." / "config.json", "config.json"},
    };
    for (const auto& [out, role] : cases) {
        const auto before = test::readFile(out);
        auto r = test::runCliWithin(traceArgs(model, tmp / "in.txt", out), tmp, 30);
        test::expectClearError(r, out.string(), role);
        EXPECT_EQ(r.exitCode, 2) << r.err;  // a usage error
        EXPECT_EQ(test::readFile(out), before) << out << " was changed";
        EXPECT_TRUE(test::nothingNamed(out.parent_path(), out.filename().string() + ".partial"));
    }
}

TEST(TraceOutput, OnlyARegularFileOrANewPathIsWritten) {
    test::TempDir tmp;
    std::ofstream(tmp / "in.txt") << "Gates forget, attention remembers.";
    test::makeFifo(tmp / "fifo.h5");
    fs::create_directory(tmp / "folder.h5");
    std::ofstream(tmp / "target.h5") << "not a trace";
    fs::create_symlink(tmp / "target.h5", tmp / "link.h5");
    const std::pair<fs::path, std::string> cases[] = {
        {"/dev/null", "character device"},
        {tmp / "fifo.h5", "FIFO"},
        {tmp / "folder.h5", "directory"},
        {tmp / "link.h5", "symbolic link"},
        {tmp / "no-such-folder" / "t.h5", "does not exist"},
    };
    for (const auto& [out, problem] : cases) {
        auto r = test::runCliWithin(traceArgs(test::bundledFox(), tmp / "in.txt", out), tmp, 30);
        test::expectClearError(r, out.string(), problem);
    }
    EXPECT_EQ(test::readFile(tmp / "target.h5"), "not a trace");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    // An existing regular file is replaced by a finished trace.
    auto r = test::runCliWithin(traceArgs(test::bundledFox(), tmp / "in.txt", tmp / "target.h5"),
                                tmp, 120);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(test::readFile(tmp / "target.h5"), "not a trace");
}

TEST(TraceOutput, AFailedRunLeavesTheOldTraceUntouched) {
    test::TempDir tmp;
    std::ofstream(tmp / "old.h5") << "the previous trace";
    std::ofstream(tmp / "bad.txt") << "\xff\xfe not UTF-8";
    auto r =
        test::runCliWithin(traceArgs(test::bundledFox(), tmp / "bad.txt", tmp / "old.h5"), tmp, 60);
    test::expectClearError(r, (tmp / "bad.txt").string(), "not valid UTF-8");
    EXPECT_EQ(test::readFile(tmp / "old.h5"), "the previous trace");
    EXPECT_TRUE(test::nothingNamed(tmp.path(), "old.h5.partial"));
}

/// Starts a trace of the bundled FoX on `tokens` bytes of text onto `out`, waits until it is
/// inside the first layer's attention, sends `signal` and returns the seconds until it exited and
/// its exit status.
std::pair<double, int> interruptLongTrace(const test::TempDir& tmp, const fs::path& out, int signal,
                                          int64_t tokens) {
    {
        std::ofstream text(tmp / "long.txt");
        const std::string line = "Gates forget, attention remembers; the forget gate decays. ";
        for (int64_t written = 0; written < tokens; written += line.size())
            text << line;
    }
    const pid_t child = fork();
    if (child == 0) {
        const std::string model = test::bundledFox().string(), input = (tmp / "long.txt").string();
        const std::string outPath = out.string();
        freopen("/dev/null", "w", stderr);
        execl(GATESCOPE_CLI, GATESCOPE_CLI, "trace", "--model", model.c_str(), "--input",
              input.c_str(), "--out", outPath.c_str(), "--threads", "2", nullptr);
        _exit(127);
    }
    // The writer creates its temporary file right before the forward starts.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool started = false;
    while (!started && std::chrono::steady_clock::now() < deadline) {
        started = !test::nothingNamed(out.parent_path(), out.filename().string() + ".partial");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(started) << "the trace never started writing";
    // Well inside layer 0's attention (tens of seconds at this length on two threads).
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    const auto sent = std::chrono::steady_clock::now();
    kill(child, signal);
    int status = 0;
    waitpid(child, &status, 0);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    return {seconds, status};
}

TEST(TraceOutput, CtrlCAndSigtermStopALongTraceWithinASecondOrTwo) {
    for (int signal : {SIGINT, SIGTERM}) {
        test::TempDir tmp;
        const auto out = tmp / "previous.h5";
        std::ofstream(out) << "the previous trace";
        // 60k tokens: about a minute per layer on two cores; before, a signal waited for the
        // layer to end.
        const auto [seconds, status] = interruptLongTrace(tmp, out, signal, 60000);
        std::printf("[ latency  ] %s: exited %.3f s after the signal\n", strsignal(signal),
                    seconds);
        ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
        EXPECT_EQ(WEXITSTATUS(status), 130);
        EXPECT_LT(seconds, 2.0) << strsignal(signal);
        EXPECT_EQ(test::readFile(out), "the previous trace");
        EXPECT_TRUE(test::nothingNamed(tmp.path(), "previous.h5.partial"));
    }
}

}  // namespace
}  // namespace gatescope
