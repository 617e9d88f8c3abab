// Every python block of docs/trace-format.md runs, with Debian's python3 + h5py + numpy (not
// whatever `python3` is first on PATH), against traces `gatescope trace` writes of the bundled
// FoX sample: a doc example that reads a dataset the file lacks (a pyramid level that does not
// exist at this N) fails here. Each block's own asserts check the numbers it reads.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli_runner.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
const fs::path kDoc = GATESCOPE_SOURCE_DIR "/docs/trace-format.md";
const char* const kPython = "/usr/bin/python3";

/// The fenced ```python blocks of a Markdown file, in order.
std::vector<std::string> pythonBlocks(const fs::path& markdown) {
    std::ifstream in(markdown);
    std::vector<std::string> blocks;
    std::string line, block;
    bool inside = false;
    while (std::getline(in, line)) {
        if (!inside && line.rfind("```python", 0) == 0) {
            inside = true;
            block.clear();
        } else if (inside && line.rfind("```", 0) == 0) {
            inside = false;
            blocks.push_back(block);
        } else if (inside) {
            block += line + "\n";
        }
    }
    return blocks;
}

/// 3000 bytes of the bundled held-out sample with a NUL and a two-byte character in it.
fs::path writeInput(const test::TempDir& tmp) {
    std::string text = test::readFile(GATESCOPE_SOURCE_DIR "/resources/samples/held_out.py");
    text.resize(3000);
    text.replace(100, 3, std::string("\0\xC3\xA9", 3));
    std::ofstream(tmp / "input.txt", std::ios::binary) << text;
    return tmp / "input.txt";
}

class DocExamples : public ::testing::TestWithParam<const char*> {};

TEST_P(DocExamples, EveryPythonBlockOfTheTraceFormatPageRuns) {
    test::TempDir tmp;
    if (test::runShell(fmt::format("{} -c 'import h5py, numpy'", kPython), tmp).exitCode != 0)
        GTEST_SKIP() << kPython << " has no h5py or numpy (Debian: python3-h5py)";
    const auto blocks = pythonBlocks(kDoc);
    ASSERT_GE(blocks.size(), 2u) << kDoc;
    const auto input = writeInput(tmp);
    auto traced =
        test::runCli(fmt::format("trace --model {} --input {} --out {} --threads 2 {}",
                                 test::quoted(GATESCOPE_SOURCE_DIR "/resources/models/fox"),
                                 test::quoted(input), test::quoted(tmp / "trace.h5"), GetParam()),
                     tmp);
    ASSERT_EQ(traced.exitCode, 0) << traced.err;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const auto script = tmp / fmt::format("block{}.py", i);
        std::ofstream(script) << blocks[i];
        auto run = test::runShell(
            fmt::format("cd {} && {} {}", test::quoted(tmp.path()), kPython, test::quoted(script)),
            tmp);
        EXPECT_EQ(run.exitCode, 0) << "python block " << i + 1 << " of " << kDoc << ":\n"
                                   << blocks[i] << "\n"
                                   << run.out << run.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, DocExamples, ::testing::Values("", "--factors-f16"),
                         [](const auto& info) {
                             return std::string(info.param[0] ? "Float16Factors" : "AsWritten");
                         });

}  // namespace
}  // namespace gatescope
