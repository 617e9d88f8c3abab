// Test-only: the Forgetting Transformer (ForgettingTransformerForCausalLM) and the Transformer
// baseline (TransformerForCausalLM) of github:zhixuan-lin/forgetting-transformer in float64,
// written from the official modeling code (every config option of fox_reference_checkpoint.h)
// with no LibTorch and no gatescope model code. The attention is the exact formula the official
// kernels compute: softmax(q k^T / sqrt(d) + c_i - c_j) over keys j <= i (and j > i - w with a
// window), c = cumsum(log f). Rotary tables are float32, as the official RotaryEmbedding builds
// them; everything else is float64. Checked against the official fixtures in fox_reference_test.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fox_reference_checkpoint.h"
#include "reference_hooks.h"

namespace gatescope::test::fox {

/// One layer as it enters the attention: q [H][N][hd], k and v [Hkv][N][hd] (after shift,
/// QK-norm, RoPE), log f [H][N] (zeros without a forget gate), lse [H][N], probs [H][N][N].
struct RefLayer {
    std::vector<ref::Mat> q, k, v, probs;
    ref::Mat logF, lse;
};

struct RefOutput {
    ref::Mat logits;  ///< [N][V]
    std::vector<RefLayer> layers;
};

namespace detail {

inline double sigmoid(double x) {
    return 1.0 / (1.0 + std::exp(-x));
}
inline double logSigmoid(double x) {
    return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x));
}
inline double activation(const std::string& name, double x) {  // swish/silu or sigmoid
    return name == "sigmoid" ? sigmoid(x) : ref::silu(x);
}

/// RMSNorm over each group of `width` channels of every row; scale [groups * width] or [width]
/// (shared by the groups).
inline void groupRms(ref::Mat& x, int width, const NamedTensor* scale, double eps) {
    for (auto& row : x)
        for (std::size_t g = 0; g < row.size() / width; ++g) {
            double ms = 0;
            for (int i = 0; i < width; ++i)
                ms += row[g * width + i] * row[g * width + i];
            const double inv = 1.0 / std::sqrt(ms / width + eps);
            for (int i = 0; i < width; ++i) {
                const std::size_t ch = g * width + i;
                const std::size_t s = scale && scale->values.size() == row.size() ? ch : i;
                row[ch] *= inv * (scale ? scale->values[s] : 1.0);
            }
        }
}

/// RotaryEmbedding (interleaved=False): float32 inv_freq = 1 / base^(arange(0, d, 2) / d) and
/// float32 angles t * inv_freq, rotating channel halves (i, i + d/2) of each head.
inline void rope(ref::Mat& x, int headDim, double base) {
    const int half = headDim / 2;
    for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t h = 0; h < x[t].size() / headDim; ++h)
            for (int i = 0; i < half; ++i) {
                const float exponent = float(2 * i) / float(headDim);
                const float invFreq = 1.0f / float(std::pow(double(float(base)), double(exponent)));
                const float angle = float(t) * invFreq;
                const double cs = float(std::cos(double(angle))),
                             sn = float(std::sin(double(angle)));
                double& a = x[t][h * headDim + i];
                double& b = x[t][h * headDim + i + half];
                const double a0 = a, b0 = b;
                a = a0 * cs - b0 * sn;
                b = b0 * cs + a0 * sn;
            }
}

/// ShiftLinear: out_t = alpha_t * y_{t-1} + (1 - alpha_t) * y_t, y_{-1} = 0, alpha per head.
inline void shift(ref::Mat& y, const ref::Mat& alphaLogits, int headDim) {
    for (std::size_t t = y.size(); t-- > 0;)
        for (std::size_t ch = 0; ch < y[t].size(); ++ch) {
            const double a = sigmoid(alphaLogits[t][ch / headDim]);
            y[t][ch] = a * (t ? y[t - 1][ch] : 0.0) + (1 - a) * y[t][ch];
        }
}

/// [N][H * hd] -> [H][N][hd].
inline std::vector<ref::Mat> perHead(const ref::Mat& x, int headDim) {
    const std::size_t heads = x.empty() ? 0 : x[0].size() / headDim;
    std::vector<ref::Mat> out(heads, ref::Mat(x.size(), std::vector<double>(headDim)));
    for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t h = 0; h < heads; ++h)
            for (int i = 0; i < headDim; ++i)
                out[h][t][i] = x[t][h * headDim + i];
    return out;
}

}  // namespace detail

/// Runs `c`'s model with weights `w` on `ids` in float64; `hooks` change its forget gates and
/// drop heads (reference_hooks.h).
inline RefOutput runReference(const RefConfig& c, const TensorMap& w,
                              const std::vector<int32_t>& ids, const RefHooks& hooks = {}) {
    using namespace ref;
    using namespace detail;
    const int n = static_cast<int>(ids.size()), hd = c.headDim(), group = c.heads / c.kv();
    RefOutput out;
    const auto& emb = w.at("model.embeddings.weight");
    Mat x(n, std::vector<double>(c.d));
    for (int t = 0; t < n; ++t)
        for (int i = 0; i < c.d; ++i)
            x[t][i] = emb.values[int64_t{ids[t]} * c.d + i];
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l), a_ = p + "attn.";
        const auto a = rms(x, &w.at(p + "attn_norm.weight"), c.normEps);
        auto q = linear(a, w.at(a_ + "q_proj.weight"));
        auto k = linear(a, w.at(a_ + (c.kShift ? "k_proj.linear.weight" : "k_proj.weight")));
        auto v = linear(a, w.at(a_ + (c.vShift ? "v_proj.linear.weight" : "v_proj.weight")));
        if (c.kShift) shift(k, linear(a, w.at(a_ + "k_proj.shift_proj.weight")), hd);
        if (c.vShift) shift(v, linear(a, w.at(a_ + "v_proj.shift_proj.weight")), hd);
        if (c.qkNorm) {  // RMSNorm(head_dim) or GroupNorm(num_heads): both eps 1e-5 (default)
            groupRms(q, hd, &w.at(a_ + "q_norm.weight"), 1e-5);
            groupRms(k, hd, &w.at(a_ + "k_norm.weight"), 1e-5);
        }
        if (c.rope) {
            rope(q, hd, c.ropeBase);
            rope(k, hd, c.ropeBase);
        }
        RefLayer rec;
        rec.q = perHead(q, hd);
        rec.k = perHead(k, hd);
        rec.v = perHead(v, hd);
        rec.logF.assign(c.heads, std::vector<double>(n, 0.0));
        if (c.hasForgetGate()) {
            const bool full = c.fgate == "full";
            Mat logits =
                full ? linear(a, w.at(a_ + "fgate_proj.weight"), &w.at(a_ + "fgate_proj.bias"))
                     : Mat{};
            for (int h = 0; h < c.heads; ++h)
                for (int t = 0; t < n; ++t)
                    rec.logF[h][t] = hooks.logGate(
                        l, h, t, 0,
                        logSigmoid(full ? logits[t][h] : w.at(a_ + "fgate_bias").values[h]));
        }
        Mat o(n, std::vector<double>(c.d, 0.0));
        rec.lse.assign(c.heads, std::vector<double>(n));
        for (int h = 0; h < c.heads; ++h) {
            const auto& qh = rec.q[h];
            const auto& kh = rec.k[h / group];
            const auto& vh = rec.v[h / group];
            std::vector<double> cum(n);
            for (int t = 0; t < n; ++t)
                cum[t] = (t ? cum[t - 1] : 0.0) + rec.logF[h][t];
            Mat probs(n, std::vector<double>(n, 0.0));
            for (int i = 0; i < n; ++i) {
                const int first = c.window > 0 ? std::max(0, i - c.window + 1) : 0;
                double mx = -INFINITY, sum = 0;
                for (int j = first; j <= i; ++j) {
                    double dot = 0;
                    for (int e = 0; e < hd; ++e)
                        dot += qh[i][e] * kh[j][e];
                    probs[i][j] = dot / std::sqrt(double(hd)) + cum[i] - cum[j];
                    mx = std::max(mx, probs[i][j]);
                }
                for (int j = first; j <= i; ++j)
                    sum += std::exp(probs[i][j] - mx);
                rec.lse[h][i] = mx + std::log(sum);
                for (int j = first; j <= i; ++j) {
                    probs[i][j] = std::exp(probs[i][j] - rec.lse[h][i]);
                    for (int e = 0; e < hd; ++e)
                        o[i][h * hd + e] += probs[i][j] * vh[j][e];
                }
            }
            rec.probs.push_back(std::move(probs));
        }
        if (c.outputNorm) groupRms(o, hd, &w.at(a_ + "output_norm.weight"), c.normEps);
        if (c.outputGate) {  // FusedGroupNormGated (sigmoid only), or glu_linear / swiglu_linear
            const auto g = linear(a, w.at(a_ + "ogate_proj.weight"));
            const std::string act = c.outputNorm ? "sigmoid" : c.ogateAct;
            for (int t = 0; t < n; ++t)
                for (int i = 0; i < c.d; ++i)
                    o[t][i] *= activation(act, g[t][i]);
        }
        for (int h = 0; h < c.heads; ++h)
            if (hooks.ablated(l, h))
                for (int t = 0; t < n; ++t)
                    std::fill(o[t].begin() + h * hd, o[t].begin() + (h + 1) * hd, 0.0);
        const auto y = linear(o, w.at(a_ + "o_proj.weight"));
        for (int t = 0; t < n; ++t)
            for (int i = 0; i < c.d; ++i)
                x[t][i] += y[t][i];
        // MLP: gate_proj [2I, d] split into (gate, up); swiglu_linear, or glu_linear for FoX's
        // hidden_act "sigmoid". TransformerMLP always runs swiglu_linear, whatever hidden_act.
        const auto m = rms(x, &w.at(p + "mlp_norm.weight"), c.normEps);
        auto gu = linear(m, w.at(p + "mlp.gate_proj.weight"));
        const int inter = c.inter();
        const std::string act = c.transformer ? "swish" : c.hiddenAct;
        Mat hidden(n, std::vector<double>(inter));
        for (int t = 0; t < n; ++t)
            for (int i = 0; i < inter; ++i)
                hidden[t][i] = activation(act, gu[t][i]) * gu[t][inter + i];
        const auto down = linear(hidden, w.at(p + "mlp.down_proj.weight"));
        for (int t = 0; t < n; ++t)
            for (int i = 0; i < c.d; ++i)
                x[t][i] += down[t][i];
        out.layers.push_back(std::move(rec));
    }
    const auto hidden = rms(x, &w.at("model.norm.weight"), c.normEps);
    out.logits = linear(hidden, w.at(c.tie ? "model.embeddings.weight" : "lm_head.weight"));
    return out;
}

}  // namespace gatescope::test::fox
