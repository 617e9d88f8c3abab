// Test support for the hostile-input tests: the real CLI under a time limit (a hang fails the
// test instead of blocking the suite), the bundled FoX sample model, and a copy of it to damage.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.h"

namespace gatescope::test {

/// The bundled trained FoX sample (byte-level: 4 layers, 4 heads, vocabulary 256).
inline std::filesystem::path bundledFox() {
    return std::filesystem::path(GATESCOPE_SOURCE_DIR) / "resources/models/fox";
}

/// `gatescope ARGS` killed after `seconds` (exit 124/137: it hung). `prefix` runs first in the
/// same shell (e.g. "ulimit -v 4000000;").
inline CliResult runCliWithin(const std::string& args, const TempDir& tmp, int seconds,
                              const std::string& prefix = {}) {
    return runShell(prefix + " timeout -k 2 " + std::to_string(seconds) + " " +
                        std::string(GATESCOPE_CLI) + " " + args,
                    tmp);
}

/// What every refused input must show: a non-zero exit that is not a hang or a crash, and one
/// error line naming the file and the problem.
inline void expectClearError(const CliResult& r, const std::string& file,
                             const std::string& problem) {
    EXPECT_NE(r.exitCode, 0) << r.err;
    EXPECT_NE(r.exitCode, 124) << "timed out (hung): " << r.err;
    EXPECT_NE(r.exitCode, 137) << "killed after the timeout (hung): " << r.err;
    EXPECT_LT(r.exitCode, 128) << "died of a signal: " << r.err;
    EXPECT_NE(r.err.find("gatescope: error: "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos)
        << "the error does not name " << file << ": " << r.err;
    EXPECT_NE(r.err.find(problem), std::string::npos) << "expected '" << problem << "': " << r.err;
}

/// A copy of the bundled FoX sample in `dir`, to damage one file at a time.
inline void copyBundledFox(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    for (const char* f : {"config.json", "model.safetensors"})
        std::filesystem::copy_file(bundledFox() / f, dir / f);
}

/// Replaces `path` with a FIFO nobody writes to.
inline void makeFifo(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
}

/// True when nothing named `name` or `name.partial-*` is in `dir`.
inline bool nothingNamed(const std::filesystem::path& dir, const std::string& name) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().starts_with(name)) return false;
    return true;
}

}  // namespace gatescope::test
