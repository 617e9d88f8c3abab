// The Wall Attention training twin of engine/models/wall: fla-style pre-norm blocks (RMSNorm,
// SwiGLU MLP with separate gate/up projections) around Wall Attention: per-channel gates
// g = softclamp(logsigmoid(g_proj(x))) on every channel of every head (gate_dim = head_dim,
// untied), P = cumsum(g), RoPE on q and k, and the gated score
//   s[i,j] = sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n]) / sqrt(head_dim)   (j <= i).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/models/wall/wall_config.h"
#include "engine/nn/layers.h"
#include "engine/train/train_blocks.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

namespace {

/// Key blocks of the gated score. Each block is scaled about an anchor A = P at its last key:
/// exp(P_i - P_j) = exp(P_i - A) exp(A - P_j). Keys give factors <= 1; queries after the block
/// too, and queries inside it at most exp(g_max (kAnchorBlock - 1)) = exp(54) with the default
/// soft clamp g_max = 0.86, far from float32 overflow.
constexpr int64_t kAnchorBlock = 64;

/// sum_n q[i,n] k[j,n] exp(P[i,n] - P[j,n]) over the first P.size(-1) channels plus the plain
/// q.k of the rest: q, k [B, H, N, hd], P [B, H, N, gd] -> [B, H, N, N] (j > i: garbage, masked
/// by the caller).
torch::Tensor gatedDots(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& p) {
    const int64_t b = q.size(0), h = q.size(1), n = q.size(2), hd = q.size(3), gd = p.size(3);
    torch::Tensor plain;
    if (gd < hd) {
        plain =
            torch::matmul(q.narrow(-1, gd, hd - gd), k.narrow(-1, gd, hd - gd).transpose(-1, -2));
    }
    if (gd == 0) return plain;
    auto qg = q.narrow(-1, 0, gd), kg = k.narrow(-1, 0, gd);
    std::vector<torch::Tensor> columns;
    for (int64_t s = 0; s < n; s += kAnchorBlock) {
        const int64_t len = std::min(kAnchorBlock, n - s);
        auto anchor = p.narrow(2, s + len - 1, 1);  // [B, H, 1, gd]
        auto qs = qg.narrow(2, s, n - s) * torch::exp(p.narrow(2, s, n - s) - anchor);
        auto ks = kg.narrow(2, s, len) * torch::exp(anchor - p.narrow(2, s, len));
        auto block = torch::matmul(qs, ks.transpose(-1, -2));  // rows s .. n-1
        if (s > 0) block = torch::cat({torch::zeros({b, h, s, len}, block.options()), block}, 2);
        columns.push_back(block);
    }
    auto gated = torch::cat(columns, -1);
    return plain.defined() ? gated + plain : gated;
}

class WallTrainNet final : public TrainNet {
public:
    explicit WallTrainNet(const NetShape& shape) : TrainNet(shape.seed) {
        // gatescope's Wall layout (docs/wall-checkpoint-format.md) with its defaults: full-width
        // untied gates, the fork's soft clamp 0.86, NeoX RoPE; no GQA.
        m_config = {{"model_type", "wall"},
                    {"vocab_size", shape.vocabSize},
                    {"hidden_size", shape.hiddenSize},
                    {"num_hidden_layers", shape.layers},
                    {"num_heads", shape.heads},
                    {"num_kv_heads", nullptr},
                    {"head_dim", nullptr},
                    {"gate_dim", nullptr},
                    {"tie_gates", false},
                    {"gate_soft_clamp", 0.86},
                    {"use_rope", true},
                    {"rope_theta", 10000.0},
                    {"hidden_ratio", 4.0},
                    {"intermediate_size", nullptr},
                    {"hidden_act", "swish"},
                    {"norm_eps", 1e-6},
                    {"tie_word_embeddings", false},
                    {"gate_bias_init", {kGateBiasLow, kGateBiasHigh}}};
        m_c = wall::parseWallConfig(m_config, "config.json");
        const int64_t d = m_c.hiddenSize, h = m_c.heads, hd = m_c.headDim, gd = m_c.gateDim;
        m_params.normal("model.embeddings.weight", {m_c.vocabSize, d}, kInitStd);
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            m_params.constant(p + "attn_norm.weight", {d}, 1.0);
            m_params.normal(p + "attn.q_proj.weight", {h * hd, d}, kInitStd);
            m_params.normal(p + "attn.k_proj.weight", {m_c.kvHeads * hd, d}, kInitStd);
            m_params.normal(p + "attn.v_proj.weight", {m_c.kvHeads * hd, d}, kInitStd);
            m_params.normal(p + "attn.g_proj.weight", {m_c.gateHeads() * gd, d}, kInitStd);
            // The blog's "conservative biases of 6-8" (no code gives an init), spread over heads
            // (every channel of a head alike) so that heads start from different horizons
            // (about 400 to 3000 tokens) and training can specialise them.
            auto bias =
                torch::linspace(kGateBiasLow, kGateBiasHigh, m_c.gateHeads(), torch::kFloat32)
                    .unsqueeze(1)
                    .expand({m_c.gateHeads(), gd})
                    .reshape({-1});
            m_params.add(p + "attn.g_proj.bias", bias);
            m_params.normal(p + "attn.o_proj.weight", {d, h * hd}, kInitStd);
            addMlpSublayer(m_params, p, d, m_c.intermediateSize, false);
        }
        addOutputHead(m_params, d, m_c.vocabSize);
    }

    torch::Tensor logits(const torch::Tensor& ids) override {
        const auto& P = m_params;
        const int64_t b = ids.size(0), n = ids.size(1), h = m_c.heads, hkv = m_c.kvHeads;
        const int64_t hd = m_c.headDim, gd = m_c.gateDim;
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        auto [cos, sin] = rotaryTables(n, hd, m_c.ropeTheta);
        cos = cos.to(ids.device());
        sin = sin.to(ids.device());
        auto i = torch::arange(n, ids.options().dtype(torch::kLong)).unsqueeze(1);
        auto j = torch::arange(n, ids.options().dtype(torch::kLong)).unsqueeze(0);
        const auto future = j > i;
        auto x = P.get("model.embeddings.weight").index_select(0, ids.flatten()).view({b, n, -1});
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            auto a = rmsNorm(x, P.get(p + "attn_norm.weight"), m_c.normEps, torch::kFloat32);
            auto q = applyRotaryHalf(linear(a, P, p + "attn.q_proj").view({b, n, h, hd}), cos, sin);
            auto k =
                applyRotaryHalf(linear(a, P, p + "attn.k_proj").view({b, n, hkv, hd}), cos, sin);
            auto v = linear(a, P, p + "attn.v_proj").view({b, n, hkv, hd});
            auto g = torch::log_sigmoid(linear(a, P, p + "attn.g_proj").view({b, n, h, gd}));
            if (m_c.softClamp) g = *m_c.softClamp * torch::expm1(g / *m_c.softClamp);
            // P accumulated in float64 and rounded once, as the inference model does.
            auto cumsum = g.to(torch::kFloat64).cumsum(1).to(torch::kFloat32).permute({0, 2, 1, 3});
            auto scores = gatedDots(q.transpose(1, 2), k.transpose(1, 2), cumsum) * scale;
            scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
            auto o = torch::matmul(torch::softmax(scores, -1), v.transpose(1, 2));
            x = x + linear(o.transpose(1, 2).reshape({b, n, h * hd}), P, p + "attn.o_proj");
            x = mlpSublayer(x, P, p, m_c.normEps, false);
        }
        return outputHead(x, P, m_c.normEps);
    }

private:
    static constexpr double kGateBiasLow = 6.0;
    static constexpr double kGateBiasHigh = 8.0;
    wall::WallConfig m_c;
};

}  // namespace

std::unique_ptr<TrainNet> makeWallTrainNet(const NetShape& shape) {
    return std::make_unique<WallTrainNet>(shape);
}

}  // namespace gatescope::core::train
