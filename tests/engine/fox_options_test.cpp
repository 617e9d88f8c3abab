// Every ForgettingTransformerConfig option that changes the math, at non-default values, on random
// checkpoints, against the float64 model written from the official code (fox_reference_model.h,
// itself checked against the official fixtures in fox_reference_test.cpp). Sequence lengths are
// no multiple of any kernel block (131, 257). docs/models.md, "Config audit: FoX and
// Transformer", maps each option to the case that covers it.
#include <gtest/gtest.h>

#include "fox_reference_compare.h"

namespace gatescope {
namespace {

using test::fox::RefConfig;

struct FoxVariant {
    const char* name;
    RefConfig config;
    int64_t n;
};

class FoxOptions : public ::testing::TestWithParam<FoxVariant> {};

TEST_P(FoxOptions, MatchesTheFloat64Reference) {
    const auto& v = GetParam();
    test::fox::expectMatchesReference(v.config, v.name, v.n, 31u);
}

/// Data-independent gate; output gate with silu and no norm; MLP with glu (sigmoid).
RefConfig biasOnlySiluGate() {
    RefConfig c;
    c.fgate = "bias_only";
    c.outputGate = true, c.ogateAct = "silu";
    c.hiddenAct = "sigmoid";
    return c;
}
/// Fixed gate; output norm without a gate; per-head QK-norm; key shift only; norm_eps 1e-3.
RefConfig fixedNormPerHeadKeyShift() {
    RefConfig c;
    c.fgate = "fixed";
    c.outputNorm = true;
    c.qkNorm = true, c.qkShared = false;
    c.kShift = true;
    c.normEps = 1e-3;
    return c;
}
/// No gate (Transformer Pro); RoPE at base 12345; fused norm + sigmoid gate; shared QK-norm;
/// value shift only; explicit intermediate_size; tied embeddings.
RefConfig noneRopeSharedQkValueShift() {
    RefConfig c;
    c.fgate = "none";
    c.rope = true, c.ropeBase = 12345.0;
    c.outputGate = true, c.outputNorm = true;
    c.qkNorm = true, c.qkShared = true;
    c.vShift = true;
    c.intermediate = 40;
    c.tie = true;
    return c;
}
/// Data-dependent gate with RoPE (FoX + RoPE, Table 3); sigmoid output gate without norm;
/// hidden_ratio 2.5 (int(32 * 2.5 * 2 / 3) = 53 -> 256); 3 layers, 2 heads of 16.
RefConfig fullRopeSigmoidGateRatio() {
    RefConfig c;
    c.rope = true, c.ropeBase = 10000.0;
    c.outputGate = true, c.ogateAct = "sigmoid";
    c.hiddenRatio = 2.5;
    c.layers = 3, c.heads = 2;
    return c;
}
/// The released FoX (Pro) block: every Pro option, hidden_ratio 3.5, on random weights.
RefConfig pro() {
    RefConfig c;
    c.outputGate = true, c.outputNorm = true;
    c.qkNorm = true, c.qkShared = true;
    c.kShift = true, c.vShift = true;
    c.hiddenRatio = 3.5;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    Config, FoxOptions,
    ::testing::Values(
        FoxVariant{"bias_only_silu_gate_glu_mlp", biasOnlySiluGate(), 131},
        FoxVariant{"fixed_norm_per_head_qk_key_shift", fixedNormPerHeadKeyShift(), 257},
        FoxVariant{"none_rope_shared_qk_value_shift_tied", noneRopeSharedQkValueShift(), 131},
        FoxVariant{"full_rope_sigmoid_gate_ratio", fullRopeSigmoidGateRatio(), 257},
        FoxVariant{"pro", pro(), 131}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
