// Test support: a whole Wall Attention language model (model_type "wall",
// docs/wall-checkpoint-format.md) in float64, written from the formulas of
// ../shared/specs/wall-attention-and-kernels.md §1.2-1.3 and §1.8, plus random checkpoints for it.
// Independent of core/models/wall and kernels/; small sizes only.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "reference_model_support.h"

namespace gatescope::test {

struct WallRefConfig {
    int vocab = 53, d = 32, layers = 2, heads = 4, kvHeads = 4, headDim = 8, gateDim = 8;
    int inter = 48;
    bool tieGates = false, rope = true, tieEmbeddings = false;
    double softClamp = 0.86;  ///< 0: none
    double gateBias = 2.0;    ///< mean of the gate bias (retention sigmoid(bias) at init)
    double ropeTheta = 10000.0, eps = 1e-6;
    int gateHeads() const { return tieGates ? kvHeads : heads; }
};

inline nlohmann::json wallConfigJson(const WallRefConfig& c) {
    return {{"model_type", "wall"},
            {"vocab_size", c.vocab},
            {"hidden_size", c.d},
            {"num_hidden_layers", c.layers},
            {"num_heads", c.heads},
            {"num_kv_heads", c.kvHeads},
            {"head_dim", c.headDim},
            {"gate_dim", c.gateDim},
            {"tie_gates", c.tieGates},
            {"gate_soft_clamp", c.softClamp > 0 ? nlohmann::json(c.softClamp) : nullptr},
            {"use_rope", c.rope},
            {"rope_theta", c.ropeTheta},
            {"intermediate_size", c.inter},
            {"hidden_act", "swish"},
            {"norm_eps", c.eps},
            {"tie_word_embeddings", c.tieEmbeddings},
            {"bos_token_id", 0}};
}

inline TensorMap randomWallWeights(const WallRefConfig& c, unsigned seed) {
    TensorMap w;
    RandomTensors r(w, seed);
    const int64_t d = c.d, hd = c.headDim;
    r.add("model.embeddings.weight", {c.vocab, d}, 1.0);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        r.add(p + "attn_norm.weight", {d}, 0.2, 1.0);
        r.add(p + "mlp_norm.weight", {d}, 0.2, 1.0);
        r.add(p + "attn.q_proj.weight", {c.heads * hd, d}, 0.5);
        r.add(p + "attn.k_proj.weight", {c.kvHeads * hd, d}, 0.5);
        r.add(p + "attn.v_proj.weight", {c.kvHeads * hd, d}, 0.3);
        r.add(p + "attn.o_proj.weight", {d, c.heads * hd}, 0.3);
        if (c.gateDim > 0) {
            r.add(p + "attn.g_proj.weight", {c.gateHeads() * c.gateDim, d}, 0.4);
            r.add(p + "attn.g_proj.bias", {c.gateHeads() * c.gateDim}, 1.0, c.gateBias);
        }
        r.add(p + "mlp.gate_proj.weight", {c.inter, d}, 0.3);
        r.add(p + "mlp.up_proj.weight", {c.inter, d}, 0.3);
        r.add(p + "mlp.down_proj.weight", {d, c.inter}, 0.3);
    }
    r.add("model.norm.weight", {d}, 0.2, 1.0);
    if (!c.tieEmbeddings) r.add("lm_head.weight", {c.vocab, d}, 0.3);
    return w;
}

/// What the reference computes: logits, and layer 0's natural-log gates per query head
/// [heads][n][gateDim] and attention probabilities [heads][n][n].
struct WallRefResult {
    ref::Mat logits;
    std::vector<ref::Mat> logGates0;
    std::vector<ref::Mat> probs0;
};

inline WallRefResult wallReference(const WallRefConfig& c, const TensorMap& w,
                                   const std::vector<int32_t>& ids) {
    using namespace ref;
    const int64_t n = ids.size(), hd = c.headDim, group = c.heads / c.kvHeads;
    WallRefResult result;
    const auto& emb = w.at("model.embeddings.weight");
    Mat x(n, std::vector<double>(c.d));
    for (int64_t t = 0; t < n; ++t)
        for (int i = 0; i < c.d; ++i)
            x[t][i] = emb.values[ids[t] * c.d + i];
    auto rope = [&](Mat& m, int heads) {
        if (!c.rope) return;
        const int64_t half = hd / 2;
        for (int64_t t = 0; t < n; ++t)
            for (int h = 0; h < heads; ++h)
                for (int64_t i = 0; i < half; ++i) {
                    const double angle = t * std::pow(c.ropeTheta, -2.0 * i / hd);
                    double& a = m[t][h * hd + i];
                    double& b = m[t][h * hd + i + half];
                    const double a0 = a, b0 = b;
                    a = a0 * std::cos(angle) - b0 * std::sin(angle);
                    b = b0 * std::cos(angle) + a0 * std::sin(angle);
                }
    };
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        auto a = rms(x, &w.at(p + "attn_norm.weight"), c.eps);
        auto q = linear(a, w.at(p + "attn.q_proj.weight"));
        auto k = linear(a, w.at(p + "attn.k_proj.weight"));
        auto v = linear(a, w.at(p + "attn.v_proj.weight"));
        rope(q, c.heads);
        rope(k, c.kvHeads);
        Mat g;  // [n][gateHeads * gateDim], natural-log gates after the soft clamp
        if (c.gateDim > 0) {
            g = linear(a, w.at(p + "attn.g_proj.weight"), &w.at(p + "attn.g_proj.bias"));
            for (auto& row : g)
                for (auto& z : row) {
                    z = -std::log1p(std::exp(-z));  // logsigmoid
                    if (c.softClamp > 0) z = c.softClamp * std::expm1(z / c.softClamp);
                }
        }
        Mat o(n, std::vector<double>(c.heads * hd, 0.0));
        for (int h = 0; h < c.heads; ++h) {
            const int64_t kv = h / group, gh = c.tieGates ? kv : h;
            Mat probs(n, std::vector<double>(n, 0.0)), gates(n, std::vector<double>(c.gateDim));
            for (int64_t i = 0; i < n; ++i) {
                for (int ch = 0; ch < c.gateDim; ++ch)
                    gates[i][ch] = g[i][gh * c.gateDim + ch];
                std::vector<double> s(i + 1);
                std::vector<double> retained(c.gateDim, 0.0);  // sum of g over tau = j+1..i
                double mx = -INFINITY;
                for (int64_t j = i; j >= 0; --j) {
                    double dot = 0.0;
                    for (int ch = 0; ch < hd; ++ch) {
                        const double decay = ch < c.gateDim ? std::exp(retained[ch]) : 1.0;
                        dot += q[i][h * hd + ch] * k[j][kv * hd + ch] * decay;
                    }
                    s[j] = dot / std::sqrt(double(hd));
                    mx = std::max(mx, s[j]);
                    for (int ch = 0; ch < c.gateDim; ++ch)
                        retained[ch] += g[j][gh * c.gateDim + ch];
                }
                double sum = 0.0;
                for (int64_t j = 0; j <= i; ++j)
                    sum += std::exp(s[j] - mx);
                for (int64_t j = 0; j <= i; ++j) {
                    probs[i][j] = std::exp(s[j] - mx) / sum;
                    for (int ch = 0; ch < hd; ++ch)
                        o[i][h * hd + ch] += probs[i][j] * v[j][kv * hd + ch];
                }
            }
            if (l == 0) {
                result.probs0.push_back(std::move(probs));
                result.logGates0.push_back(std::move(gates));
            }
        }
        auto y = linear(o, w.at(p + "attn.o_proj.weight"));
        for (int64_t t = 0; t < n; ++t)
            for (int i = 0; i < c.d; ++i)
                x[t][i] += y[t][i];
        addSwiGlu(x, w, p, c.eps);
    }
    auto hidden = rms(x, &w.at("model.norm.weight"), c.eps);
    result.logits =
        linear(hidden, w.at(c.tieEmbeddings ? "model.embeddings.weight" : "lm_head.weight"));
    return result;
}

}  // namespace gatescope::test
