// The Gated Slot Attention training twin of engine/models/gsa: fla's GSA layer (swish feature map
// on q and k, silu on v, m slots per head with forget gates alpha = sigmoid(f)^(1/tau), write
// weight 1 - alpha, softmax over the slots, silu + RMSNorm on the output) in fla's pre-norm stack.
//
// Per head the slot recurrence  K_t = diag(alpha_t) K_{t-1} + (1 - alpha_t) k_t^T  (V likewise),
// o_t = V_t^T softmax(K_t q_t)  unrolls, with C = cumsum(log alpha) per slot, to
//   w[t, s, j] = (1 - alpha_s[j]) exp(C_t[j] - C_s[j])          (s <= t)
//   score[t, j] = sum_s (q_t . k_s) w[t, s, j],   p[t] = softmax_j(score[t])
//   o_t = sum_s (sum_j p[t, j] w[t, s, j]) v_s
// It runs in chunks of kChunk tokens: inside a chunk w is formed exactly ([L, L, m] per chunk);
// across chunks, slot states anchored at each chunk's last C carry the rest (every factor <= 1,
// so nothing overflows however strong the gates get). No loop runs over tokens, only a scan of
// small state updates over the N / kChunk chunks.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/models/gsa/gsa_config.h"
#include "engine/nn/layers.h"
#include "engine/train/train_blocks.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

namespace {

constexpr int64_t kSlots = 32;  ///< num_slots (fla's default is 64; small nets get 32)
/// Tokens per chunk of the parallel form (8 was the fastest of 4, 8, 16 on a 2-core CPU).
constexpr int64_t kChunk = 8;
/// The official layer's rms_norm_linear(silu(o), g_norm.weight, ...) runs with the fused kernel's
/// default eps, whatever norm_eps says (see engine/models/gsa/gsa_layer.cpp).
constexpr double kOutputNormEps = 1e-5;

/// The slot attention of one layer, all heads at once. q, k [B, H, N, dk] (after the feature
/// map), v [B, H, N, dv], logAlpha [B, H, N, m]. Returns o [B, H, N, dv].
torch::Tensor slotAttention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& logAlpha) {
    const int64_t b = q.size(0), h = q.size(1), n = q.size(2), dv = v.size(3);
    const int64_t m = logAlpha.size(3), L = kChunk, nc = (n + L - 1) / L, padded = nc * L;
    auto pad = [&](const torch::Tensor& t) {
        if (padded == n) return t;
        // Padded tokens: log alpha 0 (C stays put, nothing is written) and queries dropped.
        auto shape = t.sizes().vec();
        shape[2] = padded - n;
        return torch::cat({t, torch::zeros(shape, t.options())}, 2);
    };
    auto chunks = [&](const torch::Tensor& t) { return pad(t).reshape({b, h, nc, L, t.size(3)}); };
    auto qc = chunks(q), kc = chunks(k), vc = chunks(v), logAlphaC = chunks(logAlpha);
    auto sc = 1.0 - torch::exp(logAlphaC);
    auto cc = torch::cumsum(logAlphaC.reshape({b, h, padded, m}), 2).view({b, h, nc, L, m});

    // Within a chunk: w[t, s, j] exactly, zero for s > t.
    auto idx = torch::arange(L, q.options().dtype(torch::kLong));
    auto future = (idx.unsqueeze(0) > idx.unsqueeze(1)).view({L, L, 1});  // [t, s, 1]
    auto diff = cc.unsqueeze(4) - cc.unsqueeze(3);                        // [B,H,nc,t,s,m]
    auto w = torch::exp(diff.masked_fill(future, -std::numeric_limits<float>::infinity())) *
             sc.unsqueeze(3);
    auto dotsIn = torch::matmul(qc, kc.transpose(-1, -2));  // [B,H,nc,t,s]
    auto scoreIn = (dotsIn.unsqueeze(-1) * w).sum(4);       // [B,H,nc,t,m]

    // Across chunks: states at the end of each chunk, anchored at the chunk's last C.
    auto anchor = cc.select(3, L - 1);                           // [B,H,nc,m]
    auto keyWeight = sc * torch::exp(anchor.unsqueeze(3) - cc);  // [B,H,nc,L,m] <= 1
    auto addK = torch::matmul(keyWeight.transpose(-1, -2), kc);  // [B,H,nc,m,dk]
    auto addV = torch::matmul(keyWeight.transpose(-1, -2), vc);  // [B,H,nc,m,dv]
    // The state after chunk c is sum over c' <= c of exp(anchor_c - anchor_c') add_c' (every
    // factor <= 1): one batched product over chunk pairs instead of a loop over chunks, which
    // launched thousands of small kernels per step on a GPU.
    auto a = anchor.permute({0, 1, 3, 2});  // [B,H,m,nc]
    auto chunk = torch::arange(nc, idx.options());
    auto later = chunk.unsqueeze(0) > chunk.unsqueeze(1);  // [c, c']: c' after c
    auto carry = torch::exp((a.unsqueeze(4) - a.unsqueeze(3))
                                .masked_fill(later, -std::numeric_limits<float>::infinity()));
    auto afterK = torch::matmul(carry, addK.permute({0, 1, 3, 2, 4}));  // [B,H,m,nc,dk]
    auto afterV = torch::matmul(carry, addV.permute({0, 1, 3, 2, 4}));  // [B,H,m,nc,dv]
    // Entering chunk c: the state after chunk c - 1 (nothing before chunk 0).
    auto entering = [&](const torch::Tensor& after) {
        auto shifted = after.permute({0, 1, 3, 2, 4}).narrow(2, 0, nc - 1);  // [B,H,nc-1,m,*]
        auto shape = shifted.sizes().vec();
        shape[2] = 1;
        return torch::cat({torch::zeros(shape, after.options()), shifted}, 2);
    };
    auto stateK = entering(afterK), stateV = entering(afterV);  // [B,H,nc,m,*]
    // The previous chunk's anchor (chunk 0 has an empty state; any finite anchor <= C does).
    auto previous =
        torch::cat({torch::zeros({b, h, 1, m}, q.options()), anchor.narrow(2, 0, nc - 1)}, 2);
    auto queryDecay = torch::exp(cc - previous.unsqueeze(3));  // [B,H,nc,L,m] <= 1
    auto score = scoreIn + queryDecay * torch::matmul(qc, stateK.transpose(-1, -2));

    auto probs = torch::softmax(score, -1);         // [B,H,nc,L,m]
    auto mixIn = (probs.unsqueeze(4) * w).sum(-1);  // [B,H,nc,t,s]
    auto o = torch::matmul(mixIn, vc) + torch::matmul(probs * queryDecay, stateV);
    return o.view({b, h, padded, dv}).narrow(2, 0, n);
}

class GsaTrainNet final : public TrainNet {
public:
    explicit GsaTrainNet(const NetShape& shape) : TrainNet(shape.seed) {
        // fla's GSAConfig defaults except num_slots: no short convolution, swish feature map,
        // gate_logit_normalizer 8, affine g_norm, expand_k = expand_v = 1, no GQA.
        m_config = {{"model_type", "gsa"},
                    {"architectures", {"GSAForCausalLM"}},
                    {"vocab_size", shape.vocabSize},
                    {"hidden_size", shape.hiddenSize},
                    {"num_hidden_layers", shape.layers},
                    {"num_heads", shape.heads},
                    {"num_kv_heads", nullptr},
                    {"num_slots", kSlots},
                    {"expand_k", 1.0},
                    {"expand_v", 1.0},
                    {"feature_map", "swish"},
                    {"use_short_conv", false},
                    {"conv_size", 4},
                    {"gate_logit_normalizer", 8.0},
                    {"elementwise_affine", true},
                    {"norm_first", false},
                    {"use_output_gate", false},
                    {"use_norm", true},
                    {"hidden_ratio", 4.0},
                    {"intermediate_size", nullptr},
                    {"hidden_act", "swish"},
                    {"norm_eps", 1e-6},
                    {"attn", nullptr},
                    {"tie_word_embeddings", false}};
        m_c = gsa::parseGsaConfig(m_config, "config.json");
        const int64_t d = m_c.hiddenSize, hkv = m_c.kvHeads;
        m_params.normal("model.embeddings.weight", {m_c.vocabSize, d}, kInitStd);
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            m_params.constant(p + "attn_norm.weight", {d}, 1.0);
            m_params.normal(p + "attn.q_proj.weight", {m_c.keyDim, d}, kInitStd);
            m_params.normal(p + "attn.k_proj.weight", {hkv * m_c.headKDim, d}, kInitStd);
            m_params.normal(p + "attn.v_proj.weight", {hkv * m_c.headVDim, d}, kInitStd);
            // fla's f_proj has no bias, so every slot of every head starts at alpha =
            // sigmoid(~0)^(1/8) ~ 0.917 (as officially); no bias means no spread to give.
            m_params.normal(p + "attn.f_proj.weight", {hkv * m_c.slots, d}, kInitStd);
            m_params.normal(p + "attn.o_proj.weight", {d, m_c.valueDim}, kInitStd);
            m_params.constant(p + "attn.g_norm.weight", {m_c.valueDim}, 1.0);
            addMlpSublayer(m_params, p, d, m_c.intermediateSize, false);
        }
        addOutputHead(m_params, d, m_c.vocabSize);
    }

    torch::Tensor logits(const torch::Tensor& ids) override {
        const auto& P = m_params;
        const int64_t b = ids.size(0), n = ids.size(1), h = m_c.heads, m = m_c.slots;
        const int64_t dk = m_c.headKDim, dv = m_c.headVDim;
        auto heads = [&](const torch::Tensor& t, int64_t width) {
            return t.view({b, n, h, width}).permute({0, 2, 1, 3});
        };
        auto x = P.get("model.embeddings.weight").index_select(0, ids.flatten()).view({b, n, -1});
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            auto a = rmsNorm(x, P.get(p + "attn_norm.weight"), m_c.normEps, torch::kFloat32);
            auto q = heads(torch::silu(linear(a, P, p + "attn.q_proj")), dk);
            auto k = heads(torch::silu(linear(a, P, p + "attn.k_proj")), dk);
            auto v = heads(torch::silu(linear(a, P, p + "attn.v_proj")), dv);
            auto logAlpha = heads(torch::log_sigmoid(linear(a, P, p + "attn.f_proj")), m) /
                            m_c.gateLogitNormalizer;
            auto o = slotAttention(q, k, v, logAlpha).permute({0, 2, 1, 3}).reshape({b, n, h * dv});
            o = rmsNorm(torch::silu(o), P.get(p + "attn.g_norm.weight"), kOutputNormEps,
                        torch::kFloat32);
            x = x + linear(o, P, p + "attn.o_proj");
            x = mlpSublayer(x, P, p, m_c.normEps, false);
        }
        return outputHead(x, P, m_c.normEps);
    }

private:
    gsa::GsaConfig m_c;
};

}  // namespace

std::unique_ptr<TrainNet> makeGsaTrainNet(const NetShape& shape) {
    return std::make_unique<GsaTrainNet>(shape);
}

}  // namespace gatescope::core::train
