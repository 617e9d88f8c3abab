// Hostile batch recipes through the real CLI: names that would write outside the output folder,
// JSON and TOML nested far too deep, thread counts that would stall the pool, and status files
// that are FIFOs (issue 29).
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/sample/random_fox_checkpoint.h"
#include "hostile_support.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;
using test::quoted;

/// A tiny model and document beside the recipe (in tmp / "work"), so that names resolve.
void writeModelAndDoc(const test::TempDir& tmp) {
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "work" / "fox", spec));
    std::ofstream(tmp / "work" / "doc.txt") << "Gates forget, attention remembers.";
}

test::CliResult batch(const test::TempDir& tmp, const std::string& name,
                      const std::string& contents) {
    std::ofstream(tmp / "work" / name) << contents;
    return test::runCliWithin("batch " + quoted(tmp / "work" / name), tmp, 60);
}

/// Every regular file under `dir`, relative.
std::set<std::string> filesUnder(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).string());
    return out;
}

TEST(BatchHostile, NamesThatWouldLeaveTheOutputFolderAreRefusedAtLoad) {
    test::TempDir tmp;
    writeModelAndDoc(tmp);
    const auto before = filesUnder(tmp.path());
    const std::vector<std::string> names = {
        "../../escaped", "/tmp/gatescope-escaped", "a/b", "..", ".", "",
        "bad\nname",     std::string(101, 'n')};
    for (const std::string& name : names) {
        const nlohmann::json recipe = {{"output", "out"},
                                       {"checkpoints", {{{"name", name}, {"path", "fox"}}}},
                                       {"inputs", {"doc.txt"}}};
        auto r = batch(tmp, "recipe.json", recipe.dump());
        test::expectClearError(r, "recipe.json", "cannot name the output folders");
        EXPECT_NE(r.err.find("checkpoints"), std::string::npos) << r.err;
    }
    // A folder whose own name is unsafe needs a "name".
    fs::create_directories(tmp / "work" / "bad name");
    auto r = batch(tmp, "recipe.json",
                   R"({"output": "out", "checkpoints": ["bad name"], "inputs": ["doc.txt"]})");
    test::expectClearError(r, "recipe.json", "give the checkpoint a \"name\"");
    fs::remove(tmp / "work" / "bad name");
    auto after = filesUnder(tmp.path());
    after.erase("work/recipe.json");
    after.erase("stdout.txt"), after.erase("stderr.txt");
    EXPECT_EQ(after, before);  // nothing written anywhere
    EXPECT_FALSE(fs::exists("/tmp/gatescope-escaped"));
}

TEST(BatchHostile, DeeplyNestedJsonAndTomlRecipesAreCleanErrors) {
    test::TempDir tmp;
    fs::create_directories(tmp / "work");
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto r = batch(tmp, "deep.json", R"({"output": "out", "x": )" + deep + "}");
    test::expectClearError(r, "deep.json", "nested deeper than");

    std::string dotted = "a";
    for (int i = 0; i < 100000; ++i)
        dotted += ".b";
    r = batch(tmp, "dotted.toml", "output = \"out\"\n" + dotted + " = 1\n");
    if (r.err.find("JSON recipes only") != std::string::npos) GTEST_SKIP() << "no toml++";
    test::expectClearError(r, "dotted.toml", "line 2: a dotted key or table header of more than");
    r = batch(tmp, "header.toml", "output = \"out\"\n[" + dotted + "]\nx = 1\n");
    test::expectClearError(r, "header.toml", "line 2");
    r = batch(tmp, "arrays.toml", "x = " + deep + "\n");
    test::expectClearError(r, "arrays.toml", "nested deeper than");
}

TEST(BatchHostile, RecipeThreadCountsAreBounded) {
    test::TempDir tmp;
    writeModelAndDoc(tmp);
    auto r = batch(tmp, "recipe.json",
                   R"({"output": "out", "checkpoints": ["fox"], "inputs": ["doc.txt"],
                       "trace": {"threads": 100000}})");
    test::expectClearError(r, "recipe.json", "trace.threads");
    EXPECT_NE(r.err.find("100000 threads"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp / "work" / "out"));
}

TEST(BatchHostile, RecipeAnalysisOptionsAreBoundedAtLoad) {
    test::TempDir tmp;
    writeModelAndDoc(tmp);
    for (const auto& [analyses, key] : std::vector<std::pair<std::string, std::string>>{
             {R"({"bins_per_octave": 1e9})", "analyses.bins_per_octave"},
             {R"({"bins_per_octave": 1000000000})", "analyses.bins_per_octave"},
             {R"({"bins_per_octave": 0})", "analyses.bins_per_octave"},
             {R"({"bin_width": -1})", "analyses.bin_width"},
             {R"({"bin_width": 18446744073709551615})", "analyses.bin_width"},
             {R"({"smoothing_window": "x"})", "analyses.smoothing_window"},
             {R"([1, 2])", "analyses"}}) {
        auto r = batch(tmp, "recipe.json",
                       R"({"output": "out", "checkpoints": ["fox"], "inputs": ["doc.txt"],
                           "analyses": )" +
                           analyses + "}");
        test::expectClearError(r, "recipe.json", key);
        EXPECT_FALSE(fs::exists(tmp / "work" / "out")) << analyses;
    }
}

TEST(BatchHostile, AFifoStatusFileDoesNotHangTheBatch) {
    test::TempDir tmp;
    writeModelAndDoc(tmp);
    const std::string recipe = R"({"output": "out", "checkpoints": ["fox"], "inputs": ["doc.txt"],
                                   "trace": {"threads": 1, "pyramid_side": 256}})";
    auto r = batch(tmp, "recipe.json", recipe);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto status = tmp / "work" / "out" / "status" / "fox_doc.txt_0.json";
    ASSERT_TRUE(fs::exists(status));
    test::makeFifo(status);
    r = batch(tmp, "recipe.json", recipe);  // the run counts as pending and runs again
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::is_regular_file(status));
}

}  // namespace
}  // namespace gatescope
