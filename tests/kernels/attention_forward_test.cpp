// attentionForward against the float64 reference written from the formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "additive_head.h"
#include "dense_reference.h"
#include "kernels/cpu/attention_forward.h"

namespace gatescope {
namespace {

using test::additive::HeadSpec;
using test::additive::RandomHead;
using test::additive::relativeError;

struct Outputs {
    std::vector<float> out, lse;
};

Outputs run(const RandomHead& head, const kernels::ForwardOptions& options) {
    Outputs o{std::vector<float>(head.spec.n * head.spec.dv, NAN),
              std::vector<float>(head.spec.n, NAN)};
    kernels::attentionForward(head.view(), o.out.data(), o.lse.data(), options);
    return o;
}

// lse is compared in absolute terms relative to max(1, |lse|): it is a log.
double lseError(const std::vector<float>& lse, const std::vector<double>& ref) {
    double worst = 0.0;
    for (size_t i = 0; i < ref.size(); ++i)
        worst = std::max(worst, std::abs(lse[i] - ref[i]) / std::max(1.0, std::abs(ref[i])));
    return worst;
}

class AttentionForwardSweep : public ::testing::TestWithParam<int64_t> {};

TEST_P(AttentionForwardSweep, MatchesDenseFloat64Reference) {
    const int64_t n = GetParam();
    const int dims[][2] = {{16, 16}, {32, 48}, {64, 64}, {48, 32}};
    uint32_t seed = 100;
    for (auto [dk, dv] : dims) {
        for (int block : {16, 64, 128}) {
            for (bool decay : {false, true}) {
                for (int64_t window : {0, 1, 7, 100}) {
                    HeadSpec spec;
                    spec.n = n;
                    spec.dk = dk;
                    spec.dv = dv;
                    spec.decay = decay;
                    spec.window = window;
                    spec.qScale = 0.5f + static_cast<float>(seed % 5);  // up to peaked rows
                    spec.vScale = 0.1f + static_cast<float>(seed % 3);
                    spec.rowPad = seed % 2 ? 3 : 0;
                    spec.seed = ++seed;
                    const RandomHead head(spec);
                    kernels::ForwardOptions options;
                    options.blockSize = block;
                    const Outputs got = run(head, options);
                    const auto ref = test::additive::denseForward(head.view());
                    SCOPED_TRACE("dk " + std::to_string(dk) + " dv " + std::to_string(dv) +
                                 " block " + std::to_string(block) + " decay " +
                                 std::to_string(decay) + " window " + std::to_string(window));
                    EXPECT_LT(relativeError(got.out, ref.out), 5e-6);
                    EXPECT_LT(lseError(got.lse, ref.lse), 2e-6);
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Lengths, AttentionForwardSweep,
                         ::testing::Values(1, 2, 127, 129, 300, 513));

TEST(AttentionForward, LargeCumulativeDecayStaysFiniteAndAccurate) {
    HeadSpec spec;
    spec.n = 2300;
    spec.dk = 64;
    spec.dv = 64;
    spec.gateMean = -2.0f;  // log f around -2.2: c falls below -5e3 by the end
    spec.qScale = 2.0f;
    spec.seed = 7;
    const RandomHead head(spec);
    ASSERT_LT(head.c.back(), -5000.0f);
    for (int64_t window : {0, 100}) {
        RandomHead windowed = head;
        windowed.spec.window = window;
        const Outputs got = run(windowed, {});
        for (float x : got.out)
            ASSERT_TRUE(std::isfinite(x));
        for (float x : got.lse)
            ASSERT_TRUE(std::isfinite(x));
        const auto ref = test::additive::denseForward(windowed.view());
        // c_i - c_j of two fp32 numbers near 5e3 is exact only to ~3e-4 absolute, as in the
        // official kernel; the error budget is that, not fp32 epsilon.
        EXPECT_LT(relativeError(got.out, ref.out), 1e-4);
        EXPECT_LT(lseError(got.lse, ref.lse), 1e-5);
    }
}

// Per-row errors max_d |out - ref| / max |ref|, sorted: rare bf16 rounding-boundary flips (p
// computed in fp32 vs double lands on the other side of a bf16 midpoint) make the maximum noisy,
// while the bulk of the rows shows which rounding scheme the kernel follows.
std::vector<double> sortedRowErrors(const std::vector<float>& out, const std::vector<double>& ref,
                                    int64_t n, int dv) {
    double scale = 0.0;
    for (double x : ref)
        scale = std::max(scale, std::abs(x));
    std::vector<double> errors(n, 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int d = 0; d < dv; ++d)
            errors[i] = std::max(errors[i], std::abs(out[i * dv + d] - ref[i * dv + d]) / scale);
    std::sort(errors.begin(), errors.end());
    return errors;
}

TEST(AttentionForward, Bf16ProbabilitiesEmulateTheTritonKernel) {
    for (int64_t n : {100, 300, 513}) {
        for (int block : {64, 128}) {
            for (int64_t window : {0, 37}) {
                HeadSpec spec;
                spec.n = n;
                spec.dk = 64;
                spec.dv = 32;
                spec.window = window;
                spec.qScale = 2.0f;
                spec.seed = static_cast<uint32_t>(n + block + window);
                const RandomHead head(spec);
                kernels::ForwardOptions options;
                options.blockSize = block;
                options.roundProbsToBf16 = true;
                const Outputs bf16 = run(head, options);
                const auto exact = test::additive::denseForward(head.view());
                const auto emulated = test::additive::denseForwardBf16(head.view(), block);
                SCOPED_TRACE("n " + std::to_string(n) + " block " + std::to_string(block) +
                             " window " + std::to_string(window));
                // Within bf16 precision of exact attention, and visibly rounded in most rows.
                const auto vsExact = sortedRowErrors(bf16.out, exact.out, n, spec.dv);
                EXPECT_LT(vsExact.back(), 1e-2);
                EXPECT_GT(vsExact[n / 2], 2e-5);
                // The kernel's scheme (bf16 p in P.V, l from fp32 p, rescaling per key block),
                // written in double: equal to fp32 rounding in 90% of rows, and never off by
                // more than a few bf16 boundary flips.
                const auto vsEmulated = sortedRowErrors(bf16.out, emulated.out, n, spec.dv);
                EXPECT_LT(vsEmulated[n * 9 / 10], 2e-6);
                EXPECT_LT(vsEmulated.back(), 2e-3);
                // l sums unrounded p, so lse is the fp32 one.
                EXPECT_LT(lseError(bf16.lse, exact.lse), 2e-6);
            }
        }
    }
}

TEST(AttentionForward, LseOnlyWhenNoValues) {
    HeadSpec spec;
    spec.n = 200;
    spec.dk = 32;
    spec.dv = 0;
    const RandomHead head(spec);
    std::vector<float> lse(spec.n, NAN);
    kernels::attentionForward(head.view(), nullptr, lse.data());
    EXPECT_LT(lseError(lse, test::additive::denseForward(head.view()).lse), 2e-6);
}

TEST(AttentionForward, EmptyHeadWritesNothing) {
    kernels::AdditiveDecayHead head;
    head.dk = 16;
    head.dv = 16;
    float sentinel = 42.0f;
    kernels::attentionForward(head, &sentinel, &sentinel);
    EXPECT_EQ(sentinel, 42.0f);
}

}  // namespace
}  // namespace gatescope
