// The power attention training twin of engine/models/power: the nanoGPT-style "power transformer"
// of Manifest AI's train/model.py with attention_kernel "power", degree 2 and gating: pre-LN
// blocks (LayerNorm with biases, eps 1e-9 in float32), a fused c_attn producing q, k, v and one
// gate logit per head, the sequence-length rotary (interleaved pairs), GELU MLP of width 3.5 d,
// LM head tied to the embeddings. Attention is power_full's attention form:
//   s[i,j] = p log(|q_i.k_j / sqrt(d)| + 1e-7) + G_i - G_j  (j <= i),  G = cumsum(log g),
//   out_i = sum_j exp(s[i,j] - m_i) v_j / (sum_j exp(s[i,j] - m_i) + 1e-6),  m_i = max_j s[i,j].
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/models/power/power_config.h"
#include "engine/models/power/power_rotary.h"
#include "engine/nn/layers.h"
#include "engine/train/train_blocks.h"
#include "engine/train/train_net.h"
#include "kernels/cpu/power_attention.h"

namespace gatescope::core::train {

namespace {

/// block_size (informational: the model has no position table).
constexpr int kBlockSize = 1024;

/// train/model.py's rotary on x [B, T, H, D] with sin/cos [T, D/2]: the same float32 steps as
/// power::applyRotaryInterleaved, batched.
torch::Tensor rotaryInterleaved(const torch::Tensor& x, const torch::Tensor& sin,
                                const torch::Tensor& cos) {
    const int64_t b = x.size(0), t = x.size(1), h = x.size(2), d = x.size(3);
    auto pairs = x.reshape({b, t, h, d / 2, 2});
    auto even = pairs.select(-1, 0);
    auto odd = pairs.select(-1, 1);
    auto s = sin.view({1, t, 1, d / 2});
    auto c = cos.view({1, t, 1, d / 2});
    return torch::stack({even * c + (-odd) * s, odd * c + even * s}, -1).reshape({b, t, h, d});
}

/// Gated power attention (power_full's attention form, norm=True) on q, k, v [B, H, N, D] and
/// the cumulative log gate G [B, H, N]. Returns [B, H, N, D].
torch::Tensor powerAttention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& g, double scale, int degree) {
    const int64_t n = q.size(2);
    auto dots = torch::matmul(q, k.transpose(-1, -2));
    auto s = degree * torch::log(torch::abs(dots * scale) + kernels::kPowerLogEps);
    s = s + pairwiseDecay(g);
    auto i = torch::arange(n, q.options().dtype(torch::kLong)).unsqueeze(1);
    auto j = torch::arange(n, q.options().dtype(torch::kLong)).unsqueeze(0);
    s = s.masked_fill(j > i, -std::numeric_limits<float>::infinity());
    auto m = std::get<0>(s.max(-1, true));
    auto w = torch::exp(s - m);
    return torch::matmul(w, v) / (w.sum(-1, true) + kernels::kPowerRowSumEps);
}

class PowerTrainNet final : public TrainNet {
public:
    explicit PowerTrainNet(const NetShape& shape) : TrainNet(shape.seed) {
        m_config = {{"model_type", "power"},
                    {"model_config",
                     {{"block_size", kBlockSize},
                      {"vocab_size", shape.vocabSize},
                      {"n_layer", shape.layers},
                      {"n_head", shape.heads},
                      {"n_embd", shape.hiddenSize},
                      {"head_size", shape.heads > 0 ? shape.hiddenSize / shape.heads : 0},
                      {"qhead_ratio", 1},
                      {"bias", true},
                      {"dropout", 0.0},
                      {"attention_kernel", "power"},
                      {"disable_gating", false},
                      {"degree", 2},
                      {"chunk_size", nullptr},
                      {"log_space", false}}}};
        m_c = power::parsePowerConfig(m_config, "config.json");
        const int64_t d = m_c.hiddenSize, h = m_c.kvHeads, hd = m_c.headDim;
        const int64_t qkv = (int64_t{m_c.qheadRatio} + 2) * h * hd;
        // train/model.py's init: Linear and embedding weights N(0, 0.02^2), biases zero,
        // c_proj weights N(0, (0.02 / sqrt(2 n_layer))^2) (GPT-2's scaled residual init).
        const double projStd = kInitStd / std::sqrt(2.0 * m_c.layers);
        m_params.normal("transformer.wte.weight", {m_c.vocabSize, d}, kInitStd);
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("transformer.h.{}.", l);
            m_params.constant(p + "ln_1.weight", {d}, 1.0);
            m_params.constant(p + "ln_1.bias", {d}, 0.0);
            m_params.normal(p + "attn.c_attn.weight", {qkv + h, d}, kInitStd);
            // The official gate is logsigmoid(6.906768 + x) with a zero bias: g ~ 0.999 for every
            // head. The gate columns' biases spread that over heads (g from 0.7 to 0.998, the
            // same spread as the other nets) so that heads start local to long-range and can
            // specialise.
            auto bias = torch::zeros({qkv + h}, torch::kFloat32);
            bias.narrow(0, qkv, h).copy_(spreadGateBias(h) - power::kGateBias);
            m_params.add(p + "attn.c_attn.bias", bias);
            m_params.normal(p + "attn.c_proj.weight", {d, int64_t{m_c.heads} * hd}, projStd);
            m_params.constant(p + "attn.c_proj.bias", {d}, 0.0);
            m_params.constant(p + "ln_2.weight", {d}, 1.0);
            m_params.constant(p + "ln_2.bias", {d}, 0.0);
            m_params.normal(p + "mlp.c_fc.weight", {m_c.mlpSize, d}, kInitStd);
            m_params.constant(p + "mlp.c_fc.bias", {m_c.mlpSize}, 0.0);
            m_params.normal(p + "mlp.c_proj.weight", {d, m_c.mlpSize}, projStd);
            m_params.constant(p + "mlp.c_proj.bias", {d}, 0.0);
        }
        m_params.constant("transformer.ln_f.weight", {d}, 1.0);
        m_params.constant("transformer.ln_f.bias", {d}, 0.0);
    }

    torch::Tensor logits(const torch::Tensor& ids) override {
        const auto& P = m_params;
        const int64_t b = ids.size(0), n = ids.size(1), h = m_c.kvHeads, hd = m_c.headDim;
        const int64_t hq = m_c.heads, qkv = (hq + 2 * h) * hd;
        auto [sin, cos] = power::sequenceRotaryTables(n, hd);
        sin = sin.to(ids.device());
        cos = cos.to(ids.device());
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        auto ln = [&](const torch::Tensor& x, const std::string& prefix) {
            return layerNorm(x, P.get(prefix + ".weight"), P.get(prefix + ".bias"),
                             power::kLayerNormEpsFp32, torch::kFloat32);
        };
        const auto& wte = P.get("transformer.wte.weight");
        auto x = wte.index_select(0, ids.flatten()).view({b, n, -1});
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("transformer.h.{}.", l);
            auto qkvg = linear(ln(x, p + "ln_1"), P, p + "attn.c_attn");
            auto q =
                rotaryInterleaved(qkvg.narrow(-1, 0, hq * hd).reshape({b, n, hq, hd}), sin, cos);
            auto k = rotaryInterleaved(qkvg.narrow(-1, hq * hd, h * hd).reshape({b, n, h, hd}), sin,
                                       cos);
            auto v = qkvg.narrow(-1, (hq + h) * hd, h * hd).reshape({b, n, h, hd});
            auto logGate = torch::log_sigmoid(qkvg.narrow(-1, qkv, h) + power::kGateBias);
            // G accumulated in float64 and rounded once, as the inference model does.
            auto g = logGate.to(torch::kFloat64).cumsum(1).to(torch::kFloat32).permute({0, 2, 1});
            auto o = powerAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), g,
                                    scale, m_c.degree);
            x = x + linear(o.transpose(1, 2).reshape({b, n, hq * hd}), P, p + "attn.c_proj");
            auto hidden = torch::gelu(linear(ln(x, p + "ln_2"), P, p + "mlp.c_fc"));
            x = x + linear(hidden, P, p + "mlp.c_proj");
        }
        return torch::linear(ln(x, "transformer.ln_f"), wte);
    }

private:
    power::PowerConfig m_c;
};

}  // namespace

std::unique_ptr<TrainNet> makePowerTrainNet(const NetShape& shape) {
    return std::make_unique<PowerTrainNet>(shape);
}

}  // namespace gatescope::core::train
