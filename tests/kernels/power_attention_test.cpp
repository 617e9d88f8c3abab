// Blockwise power attention and its state norm against dense float64 references from the formulas.
#include <gtest/gtest.h>

#include "kernels/cpu/power_attention.h"
#include "kernels/cpu/power_state_norm.h"
#include "power_reference.h"

namespace gatescope {
namespace {

kernels::PowerHead viewOf(const test::PowerCase& c) {
    kernels::PowerHead h;
    h.n = c.n;
    h.dk = c.dk;
    h.dv = c.dv;
    h.q = c.q.data();
    h.k = c.k.data();
    h.v = c.v.data();
    h.logDecayCumsum = c.g.empty() ? nullptr : c.g.data();
    h.scale = static_cast<float>(c.scale);
    h.degree = c.p;
    return h;
}

struct PowerShape {
    int64_t n;
    int dk, dv, p;
    bool gated;
    int block;
};

class PowerForward : public ::testing::TestWithParam<PowerShape> {};

TEST_P(PowerForward, MatchesDenseFloat64) {
    const PowerShape s = GetParam();
    // Strong gates (bias -1) make the row max move between key blocks; spread 1.5 makes the
    // scores peaked.
    const auto c = test::randomPowerCase(s.n, s.dk, s.dv, s.p, s.gated, 1234 + s.n, 1.5, -1.0);
    const auto ref = test::densePowerAttention(c);
    std::vector<float> out(c.n * c.dv), logZ(c.n);
    kernels::PowerForwardOptions options;
    options.blockSize = s.block;
    kernels::powerAttentionForward(viewOf(c), out.data(), logZ.data(), options);
    EXPECT_LT(test::maxRelative(out, ref.out), 2e-5);
    EXPECT_LT(test::maxRelative(logZ, ref.logNormalizer), 2e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, PowerForward,
    ::testing::Values(PowerShape{150, 16, 12, 2, true, 64}, PowerShape{97, 32, 32, 2, true, 32},
                      PowerShape{131, 8, 5, 4, true, 16}, PowerShape{70, 16, 16, 2, false, 64},
                      PowerShape{1, 4, 3, 2, true, 64}, PowerShape{45, 6, 7, 6, true, 7}));

TEST(PowerForward, SameResultForEveryBlockSize) {
    const auto c = test::randomPowerCase(203, 24, 20, 2, true, 77);
    std::vector<float> out1(c.n * c.dv), out2(c.n * c.dv), z1(c.n), z2(c.n);
    kernels::PowerForwardOptions a, b;
    a.blockSize = 13;
    b.blockSize = 128;
    kernels::powerAttentionForward(viewOf(c), out1.data(), z1.data(), a);
    kernels::powerAttentionForward(viewOf(c), out2.data(), z2.data(), b);
    EXPECT_LT(test::maxRelative(out1, out2), 1e-5);
    EXPECT_LT(test::maxRelative(z1, z2), 1e-6);
}

TEST(PowerForward, ManyHeadsMatchOneByOne) {
    std::vector<test::PowerCase> cases;
    std::vector<kernels::PowerHead> views;
    for (int h = 0; h < 5; ++h)
        cases.push_back(test::randomPowerCase(90, 8, 8, 2, true, 10 + h));
    for (const auto& c : cases)
        views.push_back(viewOf(c));
    std::vector<std::vector<float>> outs(5, std::vector<float>(90 * 8)),
        zs(5, std::vector<float>(90));
    std::vector<float*> outPtrs, zPtrs;
    for (int h = 0; h < 5; ++h) {
        outPtrs.push_back(outs[h].data());
        zPtrs.push_back(zs[h].data());
    }
    kernels::powerAttentionForwardHeads(views.data(), 5, outPtrs.data(), zPtrs.data(), {}, 3);
    for (int h = 0; h < 5; ++h) {
        std::vector<float> out(90 * 8), z(90);
        kernels::powerAttentionForward(views[h], out.data(), z.data());
        EXPECT_EQ(out, outs[h]) << "head " << h;
        EXPECT_EQ(z, zs[h]) << "head " << h;
    }
}

TEST(PowerForward, Bf16WeightRoundingStaysClose) {
    const auto c = test::randomPowerCase(120, 16, 16, 2, true, 5);
    const auto ref = test::densePowerAttention(c);
    std::vector<float> out(c.n * c.dv), z(c.n);
    kernels::PowerForwardOptions options;
    options.roundProbsToBf16 = true;
    kernels::powerAttentionForward(viewOf(c), out.data(), z.data(), options);
    const double err = test::maxRelative(out, ref.out);
    EXPECT_GT(err, 1e-6);  // the rounding happened
    EXPECT_LT(err, 1e-2);  // bf16 has 8 mantissa bits
}

class PowerStateNormTest : public ::testing::TestWithParam<PowerShape> {};

TEST_P(PowerStateNormTest, MatchesClosedFormFloat64) {
    const PowerShape s = GetParam();
    const auto c = test::randomPowerCase(s.n, s.dk, s.dv, s.p, s.gated, 99 + s.n, 0.7, 1.0);
    std::vector<double> state, normalizer;
    test::denseStateNorms(c, state, normalizer);
    for (auto method :
         {kernels::StateNormMethod::Quadratic, kernels::StateNormMethod::ExplicitState}) {
        SCOPED_TRACE(method == kernels::StateNormMethod::Quadratic ? "quadratic" : "explicit");
        std::vector<float> gotS(c.n), gotZ(c.n);
        kernels::powerStateNorm(viewOf(c), gotS.data(), gotZ.data(), method, s.block);
        for (int64_t t = 0; t < c.n; ++t) {
            ASSERT_NEAR(gotS[t], state[t], 1e-5 * state[t]) << "t = " << t;
            ASSERT_NEAR(gotZ[t], normalizer[t], 1e-5 * normalizer[t]) << "t = " << t;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PowerStateNormTest,
                         ::testing::Values(PowerShape{75, 6, 5, 2, true, 16},
                                           PowerShape{67, 5, 4, 4, true, 64},
                                           PowerShape{50, 8, 3, 2, false, 9},
                                           PowerShape{90, 9, 6, 2, true, 20}));

TEST(PowerStateNorm, ExplicitStateAgreesWithQuadraticOnLongInputs) {
    // Long enough that Auto picks the explicit state for p = 2; fast gates (bias -1) and slow.
    for (double gateBias : {-1.0, 4.0}) {
        const auto c = test::randomPowerCase(1500, 8, 8, 2, true, 5, 0.9, gateBias);
        const auto view = viewOf(c);
        EXPECT_EQ(kernels::chooseStateNormMethod(view), kernels::StateNormMethod::ExplicitState);
        std::vector<float> a(c.n), b(c.n), za(c.n), zb(c.n);
        kernels::powerStateNorm(view, a.data(), za.data(), kernels::StateNormMethod::Quadratic, 64);
        kernels::powerStateNorm(view, b.data(), zb.data(), kernels::StateNormMethod::Auto);
        for (int64_t t = 0; t < c.n; ++t) {
            ASSERT_NEAR(a[t], b[t], 1e-5 * a[t]) << "t = " << t;
            ASSERT_NEAR(za[t], zb[t], 1e-5 * za[t]) << "t = " << t;
        }
    }
}

TEST(PowerStateNorm, MatchesTheMaterializedRecurrentState) {
    // The independent check of what "state" means: S_t built token by token with phi = spow_2.
    const auto c = test::randomPowerCase(83, 7, 5, 2, true, 4242, 0.8, 1.5);
    const auto expected = test::explicitStateNormP2(c);
    for (auto method :
         {kernels::StateNormMethod::Quadratic, kernels::StateNormMethod::ExplicitState}) {
        std::vector<float> got(c.n);
        kernels::powerStateNorm(viewOf(c), got.data(), nullptr, method, 32);
        EXPECT_LT(test::maxRelative(got, expected), 1e-5);
        for (int64_t t = 0; t < c.n; ++t)
            ASSERT_GT(got[t], 0.0f);
    }
}

}  // namespace
}  // namespace gatescope
