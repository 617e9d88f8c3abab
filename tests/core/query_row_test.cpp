// core::queryRow against float64 references written from the formulas (docs/trace-format.md,
// kernels/cpu/*_tile_source.h) over synthetic factors, at N = 300 (not a multiple of the 256-cell
// tile): the attention row, its logit split into content and forgetting parts, the top keys.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "core/maps/query_row.h"
#include "tests/core/head_factors_fixture.h"

namespace gatescope::core {
namespace {

using namespace rowfixture;

/// Checks the row of every query in `queries` against the references.
template <class Content, class Forget>
void expectRows(const TraceHead& head, const char* normalizer, Content content, Forget forget) {
    const float* lse = head.factors.find(normalizer);
    for (int64_t query : {int64_t{0}, int64_t{1}, int64_t{150}, kN - 1}) {
        auto row = queryRow(head, query, 5);
        ASSERT_TRUE(row.ok()) << row.error().describe();
        ASSERT_EQ(row->attention.size(), size_t(query + 1));
        std::vector<double> expected(query + 1);
        for (int64_t j = 0; j <= query; ++j) {
            const double c = content(query, j), f = forget(query, j);
            const bool allowed = std::isfinite(f);
            expected[j] = allowed ? std::exp(c + f - lse[query]) : 0.0;
            EXPECT_NEAR(row->attention[j], expected[j], 2e-6 + 2e-5 * expected[j]) << query << j;
            if (!allowed) {
                EXPECT_TRUE(std::isinf(row->logit[j]) && std::isnan(row->content[j]) &&
                            std::isnan(row->forget[j]));
                continue;
            }
            EXPECT_NEAR(row->content[j], c, 1e-5 * (1 + std::abs(c)));
            EXPECT_NEAR(row->forget[j], f, 1e-4 * (1 + std::abs(f)));
            EXPECT_NEAR(row->logit[j], c + f, 1e-4 * (1 + std::abs(c + f)));
        }
        std::vector<int64_t> order(query + 1);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t a, int64_t b) { return expected[a] > expected[b]; });
        const size_t k = std::min<size_t>(5, order.size());
        ASSERT_EQ(row->topKeys.size(), k);
        for (size_t r = 0; r < k; ++r)
            EXPECT_NEAR(row->topWeights[r], expected[order[r]], 1e-5) << r;
    }
}

TEST(QueryRow, FoxWithAWindowSplitsTheLogitIntoContentAndDecay) {
    MapSpec spec;
    spec.scale = 0.25;
    spec.window = 50;
    spec.hasDecay = true;
    HeadFactorSet f;
    const auto q = randoms(kN * kD, -1, 1, 1), k = randoms(kN * kD, -1, 1, 2);
    const auto c = cumsums(1, 3);
    f.add("q", q, kD);
    f.add("k", k, kD);
    f.add("log_decay_cumsum", c, 1);
    const auto content = [&](int64_t i, int64_t j) { return 0.25 * dot(q, k, i, j, 0, kD); };
    const auto forget = [&](int64_t i, int64_t j) {
        return i - j < 50 ? double(c[i]) - c[j] : -kInf;
    };
    auto head =
        makeHead(spec, f, "lse", [&](auto i, auto j) { return content(i, j) + forget(i, j); });
    expectRows(*head, "lse", content, forget);
}

TEST(QueryRow, PowerAttentionContentIsTheLogOfThePower) {
    MapSpec spec;
    spec.scoreKind = ScoreKind::Power;
    spec.scale = 0.5;
    spec.hasDecay = true;
    spec.extras = {{"p", 2}, {"eps", 1e-7}};
    HeadFactorSet f;
    const auto q = randoms(kN * kD, -1, 1, 4), k = randoms(kN * kD, -1, 1, 5);
    const auto g = cumsums(1, 6);
    f.add("q", q, kD);
    f.add("k", k, kD);
    f.add("log_decay_cumsum", g, 1);
    const auto content = [&](int64_t i, int64_t j) {
        return 2 * std::log(std::abs(0.5 * dot(q, k, i, j, 0, kD)) + 1e-7);
    };
    const auto forget = [&](int64_t i, int64_t j) { return double(g[i]) - g[j]; };
    auto head = makeHead(spec, f, "log_normalizer",
                         [&](auto i, auto j) { return content(i, j) + forget(i, j); });
    expectRows(*head, "log_normalizer", content, forget);
}

TEST(QueryRow, WallForgettingIsWhatTheChannelAndScalarGatesChange) {
    const auto wall = wallHead();
    expectRows(*wall.head, "lse", wall.content, wall.forget);
}

TEST(QueryRow, RefusesQueriesOutsideTheSequence) {
    MapSpec spec;
    spec.scale = 1;
    HeadFactorSet f;
    f.add("q", std::vector<float>(kN * kD, 0.f), kD);  // every logit 0: equal weights
    f.add("k", randoms(kN * kD, -1, 1, 12), kD);
    auto head = makeHead(spec, f, "lse", [](auto, auto) { return 0.0; });
    EXPECT_EQ(queryRow(*head, kN, 3).error().kind, ErrorKind::Usage);
    EXPECT_EQ(queryRow(*head, -1, 3).error().kind, ErrorKind::Usage);
    auto row = queryRow(*head, 10, 3);
    ASSERT_TRUE(row.ok());
    EXPECT_TRUE(row->content.empty() && row->forget.empty());  // a Transformer: no split
    EXPECT_EQ(row->topKeys, (std::vector<int64_t>{0, 1, 2}));  // equal weights: earlier first
}

}  // namespace
}  // namespace gatescope::core
