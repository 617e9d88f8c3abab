// Bounded requests: layers and heads beyond the model, index lists and ranges that would not fit
// in memory or in 64 bits, thread counts that would stall the pool, and inputs longer than memory
// allows are usage errors or clear errors naming the input, never std::bad_alloc or a silent
// partial trace (issue 29).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hostile_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
using test::quoted;

fs::path writeText(const test::TempDir& tmp) {
    std::ofstream(tmp / "in.txt") << "Gates forget, attention remembers.";
    return tmp / "in.txt";
}

test::CliResult trace(const test::TempDir& tmp, const std::string& extra, int seconds = 60) {
    return test::runCliWithin(
        fmt::format("trace --model {} --input {} --out {} {}", quoted(test::bundledFox()),
                    quoted(writeText(tmp)), quoted(tmp / "out.h5"), extra),
        tmp, seconds);
}

void expectUsage(const test::CliResult& r, const std::string& option, const std::string& detail) {
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(detail), std::string::npos) << "expected '" << detail << "': " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(TraceLimits, LayersAndHeadsBeyondTheModelAreUsageErrors) {
    test::TempDir tmp;
    // The bundled FoX has 4 layers and 4 heads.
    auto r = trace(tmp, "--layers 1,7");
    expectUsage(r, "--layers", "layer 7 is outside the model's 4 layers (0-3)");
    r = trace(tmp, "--heads 0-9");
    expectUsage(r, "--heads", "head 4 is outside the model's 4 heads (0-3)");
    EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5"));
    r = trace(tmp, "--layers 3 --heads 3 --no-factors");
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST(TraceLimits, HugeListsAndRangesFailBeforeAllocating) {
    test::TempDir tmp;
    auto r = trace(tmp, "--layers 0-99999999999", 10);
    expectUsage(r, "--layers", "index 99999999999 is larger than any model has");
    r = trace(tmp, "--heads 0-65535,0-65535", 10);
    expectUsage(r, "--heads", "more than 65536 indices");
    r = trace(tmp, "--range 0:99999999999999999999", 10);
    expectUsage(r, "--range", "a range like");
    r = trace(tmp, "--range 99999999999:", 30);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("outside the input's"), std::string::npos) << r.err;
}

TEST(TraceLimits, ThreadCountsAreBounded) {
    test::TempDir tmp;
    for (const char* threads : {"100000", "-3"}) {
        auto r = trace(tmp, fmt::format("--threads {}", threads), 10);
        expectUsage(r, "--threads", fmt::format("{} threads: use 0 (all", threads));
    }
    auto r = trace(tmp, "--threads 2 --no-pyramids");
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST(TraceLimits, AnInputLongerThanMemoryAllowsNamesItAndSaysWhatFits) {
    test::TempDir tmp;
    {
        std::ofstream text(tmp / "big.txt");
        const std::string line(1023, 'x');
        for (int i = 0; i < 10 * 1024; ++i)  // 10 MiB: 10 million byte-level tokens
            text << line << '\n';
    }
    // At most 6 GB of address space: the estimate (~25 KB a token for this model) must refuse
    // the run before the forward allocates anything.
    auto r = test::runCliWithin(
        fmt::format("trace --model {} --input {} --out {}", quoted(test::bundledFox()),
                    quoted(tmp / "big.txt"), quoted(tmp / "out.h5")),
        tmp, 120, "ulimit -v 6000000;");
    test::expectClearError(r, (tmp / "big.txt").string(), "tokens fit");
    EXPECT_NE(r.err.find("10485760 tokens"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--range"), std::string::npos) << r.err;
    EXPECT_TRUE(test::nothingNamed(tmp.path(), "out.h5"));
}

}  // namespace
}  // namespace gatescope
