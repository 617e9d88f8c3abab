// The LibTorch form of GSA's slot attention (what CUDA tensors run,
// engine/models/gsa/gsa_torch_op.h) against the CPU kernel (kernels/cpu/gsa_forward.h) on random
// inputs, on the CPU: sequence lengths that are not multiples of the chunk, GQA, and bf16-rounded
// probabilities.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include "engine/models/gsa/gsa_torch_op.h"
#include "kernels/cpu/gsa_forward.h"

namespace gatescope {
namespace {

struct OpCase {
    const char* name;
    int64_t n;
    int heads, kvHeads, dk, dv, slots;
    int64_t chunk;
    bool bf16Probs;
};

double relativeError(const torch::Tensor& a, const torch::Tensor& b) {
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item<double>();
}

class GsaTorchOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(GsaTorchOp, MatchesCpuKernel) {
    const OpCase& tc = GetParam();
    torch::manual_seed(static_cast<uint64_t>(tc.n * 7 + tc.slots));
    const auto q = torch::relu(torch::randn({tc.heads, tc.n, tc.dk}));
    const auto k = torch::relu(torch::randn({tc.kvHeads, tc.n, tc.dk}));
    const auto v = torch::randn({tc.kvHeads, tc.n, tc.dv});
    // log alpha = logsigmoid(f) / 8 with f ~ N(1, 2): retention from short to very long.
    const auto logForget =
        torch::log_sigmoid(torch::randn({tc.kvHeads, tc.n, tc.slots}) * 2.0 + 1.0) / 8.0;
    const auto write = 1.0 - logForget.exp();

    const auto got =
        core::gsa::gsaForwardTorch(q, k, v, logForget, write, 1.0, tc.chunk, tc.bf16Probs);

    auto out = torch::empty({tc.heads, tc.n, tc.dv});
    auto scores = torch::empty({tc.heads, tc.n, tc.slots});
    auto probs = torch::empty({tc.heads, tc.n, tc.slots});
    auto lse = torch::empty({tc.heads, tc.n});
    auto cumsum = torch::empty({tc.kvHeads, tc.n, tc.slots});
    kernels::GsaForwardInput in;
    in.n = tc.n;
    in.heads = tc.heads;
    in.kvHeads = tc.kvHeads;
    in.dk = tc.dk;
    in.dv = tc.dv;
    in.slots = tc.slots;
    in.q = q.data_ptr<float>();
    in.k = k.data_ptr<float>();
    in.v = v.data_ptr<float>();
    in.logForget = logForget.data_ptr<float>();
    in.write = write.data_ptr<float>();
    in.scale = 1.0f;
    kernels::GsaForwardOutput o;
    o.out = out.data_ptr<float>();
    o.slotScores = scores.data_ptr<float>();
    o.slotProbs = probs.data_ptr<float>();
    o.lse = lse.data_ptr<float>();
    o.logForgetCumsum = cumsum.data_ptr<float>();
    kernels::GsaForwardOptions options;
    options.chunkSize = static_cast<int>(tc.chunk);
    options.roundProbsToBf16 = tc.bf16Probs;
    ASSERT_TRUE(kernels::gsaForward(in, o, options));

    EXPECT_LT(relativeError(got.out, out), 1e-4);
    EXPECT_LT(relativeError(got.slotScores, scores), 1e-5);
    EXPECT_LT(relativeError(got.slotProbs, probs), 1e-5);
    EXPECT_LT(relativeError(got.lse, lse), 1e-5);
    EXPECT_LT(relativeError(got.logForgetCumsum, cumsum), 1e-6);
    // The output is not trivially small (the comparison above means something).
    EXPECT_GT(out.abs().mean().item<double>(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(
    GsaShapes, GsaTorchOp,
    ::testing::Values(OpCase{"n150_gqa", 150, 4, 2, 16, 24, 8, 64, false},
                      OpCase{"n64_one_chunk", 64, 2, 2, 8, 8, 4, 64, false},
                      OpCase{"n333_bf16_probs", 333, 2, 1, 16, 16, 16, 64, true},
                      OpCase{"n1000_chunk32", 1000, 2, 2, 32, 32, 8, 32, false}),
    [](const ::testing::TestParamInfo<OpCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
