// `gatescope niah`: the grid's files, the needle where the grid says it is, and the exact-match
// score against real greedy decoding with the same model.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/analysis/niah_prompt.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/model.h"
#include "core/sample/random_fox_checkpoint.h"
#include "engine/models/registry.h"

namespace gatescope {
namespace {

using test::quoted;
using test::runCli;

std::vector<int32_t> readIds(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::vector<int32_t> ids;
    for (int32_t id; in >> id;)
        ids.push_back(id);
    return ids;
}

TEST(NiahCommand, GridFilesNeedlePlacementAndGreedyScore) {
    test::TempDir tmp;
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "model", spec));
    {
        std::ofstream hay(tmp / "hay.txt");
        for (int i = 0; i < 20; ++i)
            hay << "The grass is green. The sky is blue. ";
    }
    auto r =
        runCli(fmt::format("niah --model {} --haystack {} --lengths 300,420 --depths 0,50,100 "
                           "--out {} --threads 1",
                           quoted(tmp / "model"), quoted(tmp / "hay.txt"), quoted(tmp / "niah")),
               tmp);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto grid = nlohmann::json::parse(test::readFile(tmp / "niah" / "grid.json"));
    ASSERT_EQ(grid["cells"].size(), 6u);
    const auto svg = test::readFile(tmp / "niah" / "heatmap.svg");
    size_t rects = 0;
    for (size_t at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1))
        ++rects;
    EXPECT_EQ(rects, 6u);

    auto checkpoint = core::Checkpoint::open(tmp / "model").value();
    auto model = core::loadModel(checkpoint).value();
    for (const auto& cell : grid["cells"]) {
        const auto stem =
            fmt::format("L{}_d{}", cell["length"].get<int64_t>(), cell["depth"].get<int>());
        const auto ids = readIds(tmp / "niah" / "cells" / (stem + ".ids"));
        ASSERT_EQ(static_cast<int64_t>(ids.size()), cell["length"].get<int64_t>());
        EXPECT_TRUE(std::filesystem::exists(tmp / "niah" / cell["trace"].get<std::string>()));
        // Byte-level model: the needle's bytes are exactly the needle text.
        const int64_t nb = cell["needle"][0], ne = cell["needle"][1];
        std::string needle(ids.begin() + nb, ids.begin() + ne);
        EXPECT_EQ(needle, core::kNiahNeedle) << stem;

        if (cell["depth"] != 50) continue;
        // Greedy decoding, one forward per token, from the prompt without the answer.
        const int answer = cell["answer_tokens"];
        std::vector<int32_t> context(ids.begin(), ids.end() - answer);
        int matched = 0;
        bool prefix = true;
        for (int k = 0; k < answer && prefix; ++k) {
            core::RunOptions options;
            options.returnLogits = true;
            options.threads = 1;
            auto out = model->forward(context, {}, options, nullptr).value();
            const int64_t vocab = out.logits.shape[1];
            const float* last = out.logits.data.data() + (context.size() - 1) * vocab;
            const int32_t next = static_cast<int32_t>(std::max_element(last, last + vocab) - last);
            const int32_t want = ids[ids.size() - answer + k];
            prefix = next == want;
            matched += prefix ? 1 : 0;
            context.push_back(want);
        }
        EXPECT_EQ(cell["matched_prefix"].get<int>(), matched) << stem;
        EXPECT_EQ(cell["exact_match"].get<bool>(), matched == answer) << stem;
    }
}

TEST(NiahCommand, TooShortALengthIsAUsageError) {
    test::TempDir tmp;
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "model", spec));
    std::ofstream(tmp / "hay.txt") << "Some text. ";
    auto r = runCli(fmt::format("niah --model {} --haystack {} --lengths 50 --out {}",
                                quoted(tmp / "model"), quoted(tmp / "hay.txt"), quoted(tmp / "o")),
                    tmp);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("too short"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gatescope
