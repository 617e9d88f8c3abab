// The top next-token predictions a forward keeps (ForwardResult::topIds / topLogProbs) against
// the official code's logits (../shared/fixtures), ranked in float64; and a trace stores them
// with the text of every predicted id, which the reader gives back.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "core/model/model.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/models/registry.h"
#include "engine/trace/trace_job.h"
#include "fixture_support.h"
#include "support/temp_dir.h"

namespace gatescope {
namespace {

class TopPredictions : public ::testing::TestWithParam<const char*> {};

TEST_P(TopPredictions, AreTheOfficialLogitsMostLikelyTokens) {
    GATESCOPE_REQUIRE_FIXTURE(dir, std::string("fox/") + GetParam());
    auto checkpoint = core::Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
    auto model = core::loadModel(*checkpoint);
    ASSERT_TRUE(model) << model.error().describe();
    test::Expected expected(dir / "expected.safetensors");
    const auto ids = expected.ints("input_ids");
    const auto labels = expected.ints("labels");
    auto result = (*model)->forward(ids, labels, core::RunOptions{}, nullptr);
    ASSERT_TRUE(result) << result.error().describe();

    const auto logits = expected.floats("logits");
    const int64_t n = static_cast<int64_t>(ids.size());
    const int64_t vocab = static_cast<int64_t>(logits.size()) / n;
    const int k = result->topK;
    ASSERT_EQ(k, std::min<int64_t>(core::kTopPredictions, vocab));
    ASSERT_EQ(result->topIds.size(), static_cast<size_t>(n * k));
    for (int64_t i = 0; i < n; ++i) {
        // The reference: log_softmax in float64 of the official logits, ranked.
        const float* row = logits.data() + i * vocab;
        const double max = *std::max_element(row, row + vocab);
        double sum = 0;
        for (int64_t v = 0; v < vocab; ++v)
            sum += std::exp(double(row[v]) - max);
        const double lse = max + std::log(sum);
        std::vector<int32_t> order(static_cast<size_t>(vocab));
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          [&](int32_t a, int32_t b) { return row[a] > row[b]; });
        for (int j = 0; j < k; ++j) {
            const size_t at = static_cast<size_t>(i * k + j);
            const double logp = double(row[order[static_cast<size_t>(j)]]) - lse;
            EXPECT_NEAR(result->topLogProbs[at], logp, 1e-4) << "position " << i << " rank " << j;
            // Ids agree unless two logits are within the float32 outputs' tolerance.
            const double next = j + 1 < k ? double(row[order[static_cast<size_t>(j + 1)]]) : -1e30;
            const double prev = j > 0 ? double(row[order[static_cast<size_t>(j - 1)]]) : 1e30;
            const double own = row[order[static_cast<size_t>(j)]];
            if (own - next > 1e-3 && prev - own > 1e-3) {
                EXPECT_EQ(result->topIds[at], order[static_cast<size_t>(j)])
                    << "position " << i << " rank " << j;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Fox, TopPredictions,
                         ::testing::Values("fox-llama", "fox-pro", "transformer-pro-rope"),
                         test::fixtureCaseName);

// A traced text: /per_token/top_ids and top_logprobs [N, 5] and the text of each predicted id.
TEST(TopPredictionsTrace, TheTraceStoresThemWithTheirText) {
    test::TempDir tmp;
    core::RandomFoxSpec spec;
    spec.layers = 1, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(core::writeRandomFoxCheckpoint(tmp / "fox", spec));
    test::writeFile(tmp / "text.txt", "the forget gate decides what the model keeps");
    core::TraceRequest request;
    request.modelDir = tmp / "fox";
    request.input.path = tmp / "text.txt";
    request.out = tmp / "run.h5";
    request.threads = 1;
    request.storePyramids = false;
    auto outcome = core::runTraceJob(request, nullptr, nullptr);
    ASSERT_TRUE(outcome) << outcome.error().describe();
    auto reader = data::TraceReader::open(request.out);
    ASSERT_TRUE(reader) << reader.error().describe();
    auto per = (*reader)->perToken();
    ASSERT_TRUE(per) << per.error().describe();
    const int64_t n = (*reader)->summary().nTokens;
    ASSERT_EQ(per->topK, core::kTopPredictions);
    ASSERT_EQ(per->topIds.size(), static_cast<size_t>(n * per->topK));
    ASSERT_FALSE(per->vocabIds.empty());
    ASSERT_EQ(per->vocabIds.size(), per->vocabText.size());
    EXPECT_TRUE(std::is_sorted(per->vocabIds.begin(), per->vocabIds.end()));
    for (int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < per->topK; ++j) {
            const size_t at = static_cast<size_t>(i * per->topK + j);
            EXPECT_TRUE(
                std::binary_search(per->vocabIds.begin(), per->vocabIds.end(), per->topIds[at]));
            if (j > 0) {
                EXPECT_LE(per->topLogProbs[at], per->topLogProbs[at - 1]);
            }
        }
        // The target's rank and the top list agree: rank 0 means the target is the top id.
        if (i + 1 < n && per->targetRank[static_cast<size_t>(i)] == 0) {
            const auto tokens = (*reader)->tokens().value();
            EXPECT_EQ(per->topIds[static_cast<size_t>(i * per->topK)],
                      tokens.ids[static_cast<size_t>(i + 1)]);
        }
    }
}

}  // namespace
}  // namespace gatescope
