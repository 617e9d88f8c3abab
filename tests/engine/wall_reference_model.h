// Test support: a whole Wall Attention language model (model_type "wall",
// docs/wall-checkpoint-format.md) in float64, written from the formulas of
// ../shared/specs/wall-attention-and-kernels.md §1.2-1.3 and §1.8 and the options of the authors'
// eager reference (wall_attn/reference.py): a window of w keys (i - w < j <= i), a sink logit in
// the denominator only, a FoX-style scalar gate c_i - c_j added to the logits, and packed
// documents (no attention across, rotary positions restarting at each), plus random checkpoints
// for it. Independent of engine/models/wall and kernels/; small sizes only.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "reference_hooks.h"
#include "reference_model_support.h"

namespace gatescope::test {

struct WallRefConfig {
    int vocab = 53, d = 32, layers = 2, heads = 4, kvHeads = 4, headDim = 8, gateDim = 8;
    int inter = 48;
    bool tieGates = false, rope = true, tieEmbeddings = false;
    double softClamp = 0.86;  ///< 0: none
    double gateBias = 2.0;    ///< mean of the gate bias (retention sigmoid(bias) at init)
    double ropeTheta = 10000.0, eps = 1e-6;
    int window = 0;              ///< window_size; 0: null (full causal)
    bool sink = false;           ///< use_sink_bias
    bool scalarGate = false;     ///< use_scalar_gate
    double scalarBias = 1.5;     ///< mean of the scalar gate bias
    double qkWeightScale = 0.5;  ///< std of q_proj and k_proj weights
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
            {"bos_token_id", 0},
            {"window_size", c.window > 0 ? nlohmann::json(c.window) : nullptr},
            {"use_sink_bias", c.sink},
            {"use_scalar_gate", c.scalarGate}};
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
        r.add(p + "attn.q_proj.weight", {c.heads * hd, d}, c.qkWeightScale);
        r.add(p + "attn.k_proj.weight", {c.kvHeads * hd, d}, c.qkWeightScale);
        r.add(p + "attn.v_proj.weight", {c.kvHeads * hd, d}, 0.3);
        r.add(p + "attn.o_proj.weight", {d, c.heads * hd}, 0.3);
        if (c.gateDim > 0) {
            r.add(p + "attn.g_proj.weight", {c.gateHeads() * c.gateDim, d}, 0.4);
            r.add(p + "attn.g_proj.bias", {c.gateHeads() * c.gateDim}, 1.0, c.gateBias);
        }
        if (c.scalarGate) {
            r.add(p + "attn.f_proj.weight", {c.heads, d}, 0.4);
            r.add(p + "attn.f_proj.bias", {c.heads}, 1.0, c.scalarBias);
        }
        if (c.sink) r.add(p + "attn.sink_bias", {c.heads}, 1.0, 0.5);
        r.add(p + "mlp.gate_proj.weight", {c.inter, d}, 0.3);
        r.add(p + "mlp.up_proj.weight", {c.inter, d}, 0.3);
        r.add(p + "mlp.down_proj.weight", {d, c.inter}, 0.3);
    }
    r.add("model.norm.weight", {d}, 0.2, 1.0);
    if (!c.tieEmbeddings) r.add("lm_head.weight", {c.vocab, d}, 0.3);
    return w;
}

/// What the reference computes: logits, and layer 0's natural-log gates per query head
/// [heads][n][gateDim], scalar gates [heads][n], attention probabilities and decay map
/// [heads][n][n] (the decay map: mean over gated channels of their retention between j and i,
/// times the scalar gate's; 0 on disallowed pairs).
struct WallRefResult {
    ref::Mat logits;
    std::vector<ref::Mat> logGates0;
    ref::Mat scalarGates0;
    std::vector<ref::Mat> probs0, decay0;
};

/// `starts`: packed documents (first 0; empty: one document). `hooks` change the per-channel
/// gates (or the scalar gate when gate_dim is 0) and drop heads (reference_hooks.h).
inline WallRefResult wallReference(const WallRefConfig& c, const TensorMap& w,
                                   const std::vector<int32_t>& ids,
                                   const std::vector<int64_t>& starts = {},
                                   const RefHooks& hooks = {}) {
    using namespace ref;
    const int64_t n = ids.size(), hd = c.headDim, group = c.heads / c.kvHeads;
    WallRefResult result;
    const auto documentStart = [&](int64_t t) {
        int64_t start = 0;
        for (int64_t s : starts)
            if (s <= t) start = s;
        return start;
    };
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
                    // Positions restart at each document.
                    const double angle =
                        (t - documentStart(t)) * std::pow(c.ropeTheta, -2.0 * i / hd);
                    double& a = m[t][h * hd + i];
                    double& b = m[t][h * hd + i + half];
                    const double a0 = a, b0 = b;
                    a = a0 * std::cos(angle) - b0 * std::sin(angle);
                    b = b0 * std::cos(angle) + a0 * std::sin(angle);
                }
    };
    const auto logsigmoid = [](double z) { return -std::log1p(std::exp(-z)); };
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
                    z = logsigmoid(z);
                    if (c.softClamp > 0) z = c.softClamp * std::expm1(z / c.softClamp);
                }
            for (int64_t t = 0; t < n; ++t)
                for (int gh = 0; gh < c.gateHeads(); ++gh)
                    for (int ch = 0; ch < c.gateDim; ++ch)
                        g[t][gh * c.gateDim + ch] =
                            hooks.logGate(l, gh, t, ch, g[t][gh * c.gateDim + ch]);
        }
        Mat gs;  // [n][heads], the scalar gate (no soft clamp: FoX's gate)
        if (c.scalarGate) {
            gs = linear(a, w.at(p + "attn.f_proj.weight"), &w.at(p + "attn.f_proj.bias"));
            for (auto& row : gs)
                for (auto& z : row)
                    z = logsigmoid(z);
            if (c.gateDim == 0)  // then the scalar gate is the layer's gate
                for (int64_t t = 0; t < n; ++t)
                    for (int h = 0; h < c.heads; ++h)
                        gs[t][h] = hooks.logGate(l, h, t, 0, gs[t][h]);
        }
        Mat o(n, std::vector<double>(c.heads * hd, 0.0));
        for (int h = 0; h < c.heads; ++h) {
            const int64_t kv = h / group, gh = c.tieGates ? kv : h;
            const double sink = c.sink ? w.at(p + "attn.sink_bias").values[h] : -INFINITY;
            Mat probs(n, std::vector<double>(n, 0.0)), decay(n, std::vector<double>(n, 0.0));
            Mat gates(n, std::vector<double>(c.gateDim));
            for (int64_t i = 0; i < n; ++i) {
                for (int ch = 0; ch < c.gateDim; ++ch)
                    gates[i][ch] = g[i][gh * c.gateDim + ch];
                // Allowed keys: j <= i, i - j < window, same document; walking j down from i,
                // the first disallowed key ends them.
                int64_t first = documentStart(i);
                if (c.window > 0) first = std::max<int64_t>(first, i - c.window + 1);
                std::vector<double> s(i + 1);
                std::vector<double> retained(c.gateDim, 0.0);  // sum of g over tau = j+1..i
                double scalarRetained = 0.0;                   // sum of gs over tau = j+1..i
                double mx = sink;
                for (int64_t j = i; j >= first; --j) {
                    double dot = 0.0, meanDecay = 0.0;
                    for (int ch = 0; ch < hd; ++ch) {
                        const double r = ch < c.gateDim ? std::exp(retained[ch]) : 1.0;
                        dot += q[i][h * hd + ch] * k[j][kv * hd + ch] * r;
                        if (ch < c.gateDim) meanDecay += r / c.gateDim;
                    }
                    s[j] = dot / std::sqrt(double(hd)) + scalarRetained;
                    decay[i][j] = (c.gateDim ? meanDecay : 1.0) * std::exp(scalarRetained);
                    mx = std::max(mx, s[j]);
                    for (int ch = 0; ch < c.gateDim; ++ch)
                        retained[ch] += g[j][gh * c.gateDim + ch];
                    if (c.scalarGate) scalarRetained += gs[j][h];
                }
                double sum = std::exp(sink - mx);  // the sink: denominator only
                for (int64_t j = first; j <= i; ++j)
                    sum += std::exp(s[j] - mx);
                for (int64_t j = first; j <= i; ++j) {
                    probs[i][j] = std::exp(s[j] - mx) / sum;
                    for (int ch = 0; ch < hd; ++ch)
                        o[i][h * hd + ch] += probs[i][j] * v[j][kv * hd + ch];
                }
            }
            if (l == 0) {
                result.probs0.push_back(std::move(probs));
                result.decay0.push_back(std::move(decay));
                result.logGates0.push_back(std::move(gates));
                if (c.scalarGate) {
                    result.scalarGates0.emplace_back();
                    for (int64_t t = 0; t < n; ++t)
                        result.scalarGates0.back().push_back(gs[t][h]);
                }
            }
        }
        for (int h = 0; h < c.heads; ++h)
            if (hooks.ablated(l, h))
                for (int64_t t = 0; t < n; ++t)
                    std::fill(o[t].begin() + h * hd, o[t].begin() + (h + 1) * hd, 0.0);
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
