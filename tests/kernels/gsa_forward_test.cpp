// The chunked GSA forward against the float64 per-token recurrence (gsa_reference.h).
#include <cmath>
#include <tuple>

#include <gtest/gtest.h>

#include "kernels/cpu/gsa_forward.h"
#include "kernels/gsa_reference.h"

namespace gatescope {
namespace {

struct Run {
    std::vector<float> out, scores, probs, lse, cumsum, stateK, stateV;
};

Run runChunked(const test::GsaProblem& p, int chunk, int threads = 2) {
    Run r;
    const int64_t chunks = kernels::gsaChunkCount(p.n, chunk);
    r.out.assign(p.heads * p.n * p.dv, NAN);
    r.scores.assign(p.heads * p.n * p.slots, NAN);
    r.probs.assign(r.scores.size(), NAN);
    r.lse.assign(p.heads * p.n, NAN);
    r.cumsum.assign(p.kvHeads * p.n * p.slots, NAN);
    r.stateK.assign(p.kvHeads * chunks * p.slots * p.dk, NAN);
    r.stateV.assign(p.kvHeads * chunks * p.slots * p.dv, NAN);
    kernels::GsaForwardInput in{
        p.n,        p.heads,    p.kvHeads,          p.dk,           p.dv,   p.slots, p.q.data(),
        p.k.data(), p.v.data(), p.logForget.data(), p.write.data(), p.scale};
    kernels::GsaForwardOutput out{r.out.data(),    r.scores.data(), r.probs.data(), r.lse.data(),
                                  r.cumsum.data(), r.stateK.data(), r.stateV.data()};
    kernels::GsaForwardOptions options;
    options.chunkSize = chunk;
    options.threads = threads;
    EXPECT_TRUE(kernels::gsaForward(in, out, options));
    return r;
}

/// The reference's per-token states at the last token of each chunk.
std::vector<double> boundaryStates(const std::vector<double>& perToken, const test::GsaProblem& p,
                                   int64_t width, int chunk) {
    std::vector<double> picked;
    const int64_t per = p.slots * width;
    for (int kv = 0; kv < p.kvHeads; ++kv)
        for (int64_t c = 0; c < kernels::gsaChunkCount(p.n, chunk); ++c) {
            const int64_t t = std::min<int64_t>((c + 1) * chunk, p.n) - 1;
            auto first = perToken.begin() + (kv * p.n + t) * per;
            picked.insert(picked.end(), first, first + per);
        }
    return picked;
}

void expectMatches(const test::GsaProblem& p, int chunk, double tol) {
    const auto ref = test::gsaReference(p);
    const auto got = runChunked(p, chunk);
    EXPECT_LT(test::maxRelativeError(got.out, ref.out), tol) << "out";
    EXPECT_LT(test::maxRelativeError(got.scores, ref.scores), tol) << "slot scores";
    EXPECT_LT(test::maxRelativeError(got.probs, ref.probs), tol) << "slot probs";
    EXPECT_LT(test::maxRelativeError(got.lse, ref.lse), tol) << "lse";
    EXPECT_LT(test::maxRelativeError(got.cumsum, ref.cumsum), 1e-6) << "G";
    EXPECT_LT(test::maxRelativeError(got.stateK, boundaryStates(ref.stateK, p, p.dk, chunk)), tol)
        << "K state";
    EXPECT_LT(test::maxRelativeError(got.stateV, boundaryStates(ref.stateV, p, p.dv, chunk)), tol)
        << "V state";
}

// n, heads, kvHeads, dk, dv, slots, chunk: sizes off the chunk grid, GQA, one-token inputs.
using GsaShape = std::tuple<int64_t, int, int, int, int, int, int>;
class GsaForwardShapes : public ::testing::TestWithParam<GsaShape> {};

TEST_P(GsaForwardShapes, MatchesFloat64Recurrence) {
    const auto [n, heads, kvHeads, dk, dv, slots, chunk] = GetParam();
    auto p = test::GsaProblem::random(n, heads, kvHeads, dk, dv, slots, 1234u + unsigned(n));
    expectMatches(p, chunk, 2e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, GsaForwardShapes,
    ::testing::Values(GsaShape{1, 1, 1, 3, 5, 2, 64}, GsaShape{150, 4, 2, 24, 20, 7, 64},
                      GsaShape{97, 2, 2, 17, 9, 16, 16}, GsaShape{65, 3, 1, 8, 8, 5, 64},
                      GsaShape{203, 2, 1, 12, 10, 11, 1}, GsaShape{70, 2, 2, 6, 7, 3, 1000},
                      GsaShape{130, 2, 1, 64, 48, 32, 64}));

TEST(GsaForward, ChunkSizeDoesNotChangeTheResult) {
    auto p = test::GsaProblem::random(131, 2, 1, 10, 6, 9, 7u);
    const auto a = runChunked(p, 64), b = runChunked(p, 5, 1);
    EXPECT_LT(test::maxRelativeError(a.out, b.out), 2e-6);
    EXPECT_LT(test::maxRelativeError(a.probs, b.probs), 2e-6);
}

TEST(GsaForward, NonUnitScaleIsApplied) {
    auto p = test::GsaProblem::random(80, 2, 2, 16, 8, 6, 99u);
    p.scale = 0.25f;
    expectMatches(p, 64, 2e-5);
}

TEST(GsaForward, StrongForgettingAndHugeCumulativeGatesStayFinite) {
    // Slot 0 forgets with log alpha = -12 every token: one 64-token chunk spans 768 of G (past the
    // factorized path's limit, so the direct path runs) and 1500 tokens reach G = -18000. Slot 1
    // sits near the limit (-9.5 x 64 = 608); the other slots keep the usual gates and take the
    // factorized path in the same chunks. Values must stay finite and match the recurrence.
    auto p = test::GsaProblem::random(1500, 1, 1, 6, 5, 4, 5u);
    for (int64_t t = 0; t < p.n; ++t) {
        p.logForget[t * p.slots + 0] = -12.0f;
        p.logForget[t * p.slots + 1] = -9.5f;
        for (int j = 0; j < 2; ++j)
            p.write[t * p.slots + j] =
                static_cast<float>(1.0 - std::exp(double(p.logForget[t * p.slots + j])));
    }
    const auto got = runChunked(p, 64);
    for (float x : got.out)
        ASSERT_TRUE(std::isfinite(x));
    const auto ref = test::gsaReference(p);
    EXPECT_LT(ref.cumsum[(p.n - 1) * p.slots], -17000.0);
    EXPECT_LT(test::maxRelativeError(got.out, ref.out), 2e-5);
    EXPECT_LT(test::maxRelativeError(got.probs, ref.probs), 2e-5);
    EXPECT_LT(test::maxRelativeError(got.cumsum, ref.cumsum), 1e-6);
}

TEST(GsaForward, RejectsInconsistentSizes) {
    auto p = test::GsaProblem::random(10, 3, 2, 4, 4, 2, 1u);
    std::vector<float> out(3 * 10 * 4);
    kernels::GsaForwardInput in{
        10, 3, 2, 4, 4, 2, p.q.data(), p.k.data(), p.v.data(), p.logForget.data(), p.write.data()};
    kernels::GsaForwardOutput o;
    o.out = out.data();
    EXPECT_FALSE(kernels::gsaForward(in, o));  // 3 heads over 2 kv heads
    in.heads = 2;
    in.write = nullptr;
    EXPECT_FALSE(kernels::gsaForward(in, o));
    in.write = p.write.data();
    kernels::GsaForwardOptions zeroChunk;
    zeroChunk.chunkSize = 0;
    EXPECT_FALSE(kernels::gsaForward(in, o, zeroChunk));
    EXPECT_TRUE(kernels::gsaForward(in, o));
}

}  // namespace
}  // namespace gatescope
