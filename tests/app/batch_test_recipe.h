// Test support for `gatescope batch`: a recipe over two tiny byte-level models and a folder of
// documents, and readers of the summary it leaves.
#pragma once

#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/sample/random_fox_checkpoint.h"

namespace gatescope::test {

/// Two byte-level models, three documents (one longer than max_tokens: two chunks), and a third
/// checkpoint entry that does not exist.
inline std::filesystem::path writeRecipe(const TempDir& tmp, int docs = 2, bool bad = true,
                                  const nlohmann::json& figures = nlohmann::json::array()) {
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    EXPECT_TRUE(core::writeRandomFoxCheckpoint(tmp / "fox", spec));
    spec.forgetGate = false, spec.seed = 2;
    EXPECT_TRUE(core::writeRandomFoxCheckpoint(tmp / "tfm", spec));
    std::filesystem::create_directories(tmp / "docs");
    for (int d = 0; d < docs; ++d) {
        std::ofstream out(tmp / "docs" / fmt::format("doc{}.txt", d));
        for (int i = 0; i < 10 + 20 * d; ++i)
            out << "Gates forget, attention remembers. ";
    }
    nlohmann::json checkpoints = {"fox", {{"name", "transformer"}, {"path", "tfm"}}};
    if (bad) checkpoints.push_back("no-such-model");
    const nlohmann::json recipe = {{"output", "out"},
                                   {"checkpoints", checkpoints},
                                   {"inputs", {"docs"}},
                                   {"max_tokens", 512},
                                   {"trace", {{"threads", 1}, {"pyramid_side", 256}}},
                                   {"analyses", {{"attention", true}, {"bin_width", 64}}},
                                   {"figures", figures}};
    std::ofstream(tmp / "recipe.json") << recipe.dump(2);
    return tmp / "recipe.json";
}

inline nlohmann::json summary(const TempDir& tmp) {
    return nlohmann::json::parse(test::readFile(tmp / "out" / "summary.json"));
}

inline int count(const nlohmann::json& rows, const std::string& state) {
    int n = 0;
    for (const auto& r : rows)
        n += r["state"] == state ? 1 : 0;
    return n;
}

}  // namespace gatescope::test
