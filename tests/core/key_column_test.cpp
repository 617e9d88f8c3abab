// core::keyColumn against float64 references written from the formulas over synthetic factors
// (N = 300): the column of a key over every later query, its logit split into content and
// forgetting parts, the strongest readers; blocks of any size give the same column; a set
// cancel flag stops it.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "core/maps/key_column.h"
#include "core/maps/query_row.h"
#include "tests/core/head_factors_fixture.h"

namespace gatescope::core {
namespace {

using namespace rowfixture;

template <class Content, class Forget>
void expectColumns(const TraceHead& head, Content content, Forget forget) {
    const float* lse = head.factors.find("lse");
    for (int64_t key : {int64_t{0}, int64_t{7}, int64_t{150}, kN - 1}) {
        auto col = keyColumn(head, key, 5, nullptr, 37);  // blocks that do not divide N
        ASSERT_TRUE(col.ok()) << col.error().describe();
        ASSERT_EQ(col->attention.size(), size_t(kN - key));
        std::vector<double> expected(kN - key);
        for (int64_t i = key; i < kN; ++i) {
            const size_t r = size_t(i - key);
            const double c = content(i, key), f = forget(i, key);
            const bool allowed = std::isfinite(f);
            expected[r] = allowed ? std::exp(c + f - lse[i]) : 0.0;
            EXPECT_NEAR(col->attention[r], expected[r], 2e-6 + 2e-5 * expected[r]) << i;
            if (!allowed) {
                EXPECT_TRUE(std::isinf(col->logit[r]) && std::isnan(col->content[r]));
                continue;
            }
            EXPECT_NEAR(col->content[r], c, 1e-5 * (1 + std::abs(c)));
            EXPECT_NEAR(col->forget[r], f, 1e-4 * (1 + std::abs(f)));
        }
        std::vector<size_t> order(expected.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return expected[a] > expected[b]; });
        const size_t k = std::min<size_t>(5, order.size());
        ASSERT_EQ(col->topQueries.size(), k);
        for (size_t r = 0; r < k; ++r)
            EXPECT_NEAR(col->topWeights[r], expected[order[r]], 1e-5) << r;
        // The same column in one block, and each entry equal to that query's row at the key.
        auto whole = keyColumn(head, key, 5, nullptr, kN);
        ASSERT_TRUE(whole.ok());
        EXPECT_EQ(whole->attention, col->attention);
        auto row = queryRow(head, kN - 1, 0);
        ASSERT_TRUE(row.ok());
        EXPECT_EQ(row->attention[size_t(key)], col->attention.back());
    }
}

TEST(KeyColumn, FoxWithAWindowSplitsEachReaderIntoContentAndDecay) {
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
    expectColumns(*head, content, forget);
}

TEST(KeyColumn, WallForgettingIsWhatTheGatesChange) {
    const auto wall = wallHead();
    expectColumns(*wall.head, wall.content, wall.forget);
}

TEST(KeyColumn, RefusesBadArgumentsAndStopsWhenCancelled) {
    MapSpec spec;
    spec.scale = 1;
    HeadFactorSet f;
    f.add("q", std::vector<float>(kN * kD, 0.f), kD);  // every logit 0: equal weights 1/(i+1)
    f.add("k", randoms(kN * kD, -1, 1, 12), kD);
    auto head = makeHead(spec, f, "lse", [](auto, auto) { return 0.0; });
    EXPECT_EQ(keyColumn(*head, kN, 3).error().kind, ErrorKind::Usage);
    EXPECT_EQ(keyColumn(*head, -1, 3).error().kind, ErrorKind::Usage);
    EXPECT_EQ(keyColumn(*head, 0, 3, nullptr, 0).error().kind, ErrorKind::Usage);
    std::atomic<bool> cancelled{true};
    EXPECT_EQ(keyColumn(*head, 0, 3, &cancelled).error().kind, ErrorKind::Cancelled);
    auto col = keyColumn(*head, 10, 3);
    ASSERT_TRUE(col.ok());
    EXPECT_TRUE(col->content.empty());  // a Transformer: no split
    // Weight 1/(i+1) for query i: the key's own query reads it most.
    EXPECT_EQ(col->topQueries, (std::vector<int64_t>{10, 11, 12}));
    EXPECT_NEAR(col->topWeights[0], 1.0 / 11, 1e-6);
}

}  // namespace
}  // namespace gatescope::core
