// Test-only: a float64 forward of nanochat's GPTGated (ljxw88/nanochat b41ed57,
// nanochat/gpt_gated.py + nanochat/token_shift.py + GFWA/flash.py), the public GatedFWA code,
// written from that code (spec gatedfwa.md §1.5, §2.2, §7) with no LibTorch and no gatescope model
// code; random weights under the official state-dict names; and the checkpoint layout gatescope
// reads ({"model_type": "gated_fwa", "model_config": {GPTGatedConfig fields}}).
//
// What it follows from the official code, term by term:
// - x = norm(wte[ids]); norm = F.rms_norm with no weight and eps None, i.e. float32 epsilon in the
//   official float32 model (used here for every norm, QK-norm included).
// - Block: x += c_proj(attn(norm(x))); x += mlp.c_proj(relu(mlp.c_fc(norm(x)))^2).
// - Attention: q = c_q(a); k = c_k(a) or ShiftLinear; v = c_v(a) or ShiftLinear (state-dict
//   prefix "v_proj"); ShiftLinear: out_t = alpha_t W a_t + (1 - alpha_t) W a_{t-1},
//   alpha_t = sigmoid(shift_proj(a_t)) per kv head, W a_{-1} = 0, and for a one-token input
//   (T == 1, no cache) the plain projection W a_0. Then rotary (base 10000, half split,
//   y1 = x1 cos + x2 sin, y2 = -x1 sin + x2 cos, cos/sin computed in float32 and rounded to
//   bfloat16), then the parameter-free QK RMSNorm.
// - Gate (use_forgetting_gate): beta = elu(a @ weight_lambda) + 1 (weight_lambda [d, H], not
//   transposed); log lambda = logsigmoid(fgate_proj(a) * beta) * (1 / (beta + 1e-3)).
// - GFWA kernel: U = cumsum(log lambda) (0 without the gate); for query i the keys
//   max(0, i - w + 1) .. i (all j <= i when window_size is null), score q.k / sqrt(d_h) + U_i -
//   U_j, softmax.
// - Head: logits = lm_head(norm(x)) over the padded vocabulary (multiple of 64); the inference
//   output keeps the first vocab_size columns (then 15 tanh(. / 15)); the training loss
//   (Liger fused linear cross entropy on lm_head.weight) normalizes over every padded row.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_file.h"
#include "reference_hooks.h"
#include "reference_model_support.h"

namespace gatescope::test::gatedfwa {

/// GPTGatedConfig fields (window 0 stands for window_size null).
struct RefConfig {
    int vocab = 0, layers = 0, heads = 0, hidden = 0;
    int64_t window = 0;
    bool gate = true, kShift = false, vShift = false;
    int sequenceLen = 1024;
    int headDim() const { return hidden / heads; }
    int paddedVocab() const { return (vocab + 63) / 64 * 64; }
};

/// The config.json gatescope reads for `c` (every GPTGatedConfig field written out).
inline nlohmann::json configJson(const RefConfig& c) {
    return {{"model_type", "gated_fwa"},
            {"model_config",
             {{"sequence_len", c.sequenceLen},
              {"vocab_size", c.vocab},
              {"n_layer", c.layers},
              {"n_head", c.heads},
              {"n_kv_head", c.heads},
              {"n_embd", c.hidden},
              {"window_size", c.window > 0 ? nlohmann::json(c.window) : nlohmann::json(nullptr)},
              {"use_forgetting_gate", c.gate},
              {"use_k_shift", c.kShift},
              {"use_v_shift", c.vShift}}}};
}

/// Random, deliberately non-trivial weights under the official names for `c`: gate biases from
/// "forget within a few tokens" to "remember", amplitudes beta away from 1, shift mixes away from
/// 1/2, and non-zero padded rows of wte and lm_head (a trained model's are not zero either).
inline TensorMap randomWeights(const RefConfig& c, unsigned seed) {
    TensorMap w;
    RandomTensors random(w, seed);
    const int64_t d = c.hidden, h = c.heads, v = c.paddedVocab();
    const double s = 1.0 / std::sqrt(double(d));
    random.add("transformer.wte.weight", {v, d}, 1.0);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("transformer.h.{}.", l);
        random.add(p + "attn.c_q.weight", {d, d}, s);
        if (c.kShift) {
            random.add(p + "attn.c_k.linear.weight", {d, d}, s);
            random.add(p + "attn.c_k.shift_proj.weight", {h, d}, 1.5 * s);
        } else {
            random.add(p + "attn.c_k.weight", {d, d}, s);
        }
        if (c.vShift) {
            random.add(p + "attn.v_proj.linear.weight", {d, d}, s);
            random.add(p + "attn.v_proj.shift_proj.weight", {h, d}, 1.5 * s);
        } else {
            random.add(p + "attn.c_v.weight", {d, d}, s);
        }
        random.add(p + "attn.c_proj.weight", {d, d}, s);
        if (c.gate) {
            random.add(p + "attn.fgate_proj.weight", {h, d}, 1.5 * s);
            random.add(p + "attn.fgate_proj.bias", {h}, 0.0);
            auto& bias = w[p + "attn.fgate_proj.bias"].values;
            for (int64_t i = 0; i < h; ++i)
                bias[i] = static_cast<float>(-1.0 +
                                             5.0 * double(i) / double(std::max<int64_t>(1, h - 1)));
            random.add(p + "attn.weight_lambda", {d, h}, 0.8 * s);
        }
        random.add(p + "mlp.c_fc.weight", {4 * d, d}, s);
        random.add(p + "mlp.c_proj.weight", {d, 4 * d}, 0.5 * s);
    }
    random.add("lm_head.weight", {v, d}, 2.0 * s);
    return w;
}

/// Every tensor of a safetensors file (e.g. a fixture's model.safetensors), as float32.
inline TensorMap readTensors(const std::filesystem::path& file) {
    auto opened = core::SafetensorsFile::open(file);
    if (!opened) throw std::runtime_error(opened.error().describe());
    TensorMap out;
    for (const auto& [name, info] : (*opened)->tensors())
        out[name] = {info.shape, core::toFloat32(info).value()};
    return out;
}

struct RefOutput {
    std::vector<double> logitsRaw;   ///< [N, vocab]: before the softcap, padding dropped
    std::vector<double> loss;        ///< [N]: -log softmax(logitsRaw)[target]; NaN without one
    std::vector<double> lossPadded;  ///< [N]: the same over every padded row (the training loss)
};

namespace detail {

inline constexpr double kNormEps = std::numeric_limits<float>::epsilon();

inline float roundToBf16(float x) {
    auto bits = std::bit_cast<uint32_t>(x);
    bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest, ties to even (finite inputs)
    return std::bit_cast<float>(bits & 0xFFFF0000u);
}

/// nanochat's _precompute_rotary_embeddings for positions 0..n-1: every step in float32 as torch
/// does it, then cos/sin rounded to bfloat16. Returns {cos, sin}, each [n][d_h / 2].
inline std::pair<ref::Mat, ref::Mat> rotaryTables(int64_t n, int headDim) {
    ref::Mat cosT(n, std::vector<double>(headDim / 2)), sinT = cosT;
    for (int i = 0; i < headDim / 2; ++i) {
        const float exponent = float(2 * i) / float(headDim);
        const float power = static_cast<float>(std::pow(10000.0, double(exponent)));
        const float invFreq = 1.0f / power;
        for (int64_t t = 0; t < n; ++t) {
            const float angle = float(t) * invFreq;
            cosT[t][i] = roundToBf16(static_cast<float>(std::cos(double(angle))));
            sinT[t][i] = roundToBf16(static_cast<float>(std::sin(double(angle))));
        }
    }
    return {cosT, sinT};
}

/// ShiftLinear.forward on the already projected `out` [n][heads * dh] with shift logits
/// `mix` [n][heads].
inline ref::Mat tokenShift(const ref::Mat& out, const ref::Mat& mix, int heads) {
    const int64_t n = out.size();
    if (n == 1) return out;  // T == 1 without a cache: the plain projection
    const int64_t dh = out[0].size() / heads;
    ref::Mat y = out;
    for (int64_t t = 0; t < n; ++t)
        for (int h = 0; h < heads; ++h) {
            const double alpha = 1.0 / (1.0 + std::exp(-mix[t][h]));
            for (int64_t e = 0; e < dh; ++e) {
                const double prev = t > 0 ? out[t - 1][h * dh + e] : 0.0;
                y[t][h * dh + e] = alpha * out[t][h * dh + e] + (1.0 - alpha) * prev;
            }
        }
    return y;
}

inline double logSigmoid(double z) {
    return std::min(z, 0.0) - std::log1p(std::exp(-std::abs(z)));
}

/// -log softmax(row[0..width))[target], in float64.
inline double crossEntropy(const std::vector<double>& row, int64_t width, int64_t target) {
    double peak = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int64_t j = 0; j < width; ++j)
        peak = std::max(peak, row[j]);
    for (int64_t j = 0; j < width; ++j)
        sum += std::exp(row[j] - peak);
    return peak + std::log(sum) - row[target];
}

}  // namespace detail

/// Runs GPTGated on `ids` in float64. `targets[i] < 0` (or i past its end) means no target.
/// `hooks` change the memory gate log lambda and drop heads (reference_hooks.h).
inline RefOutput runReference(const RefConfig& c, const TensorMap& w,
                              const std::vector<int32_t>& ids, const std::vector<int32_t>& targets,
                              const RefHooks& hooks = {}) {
    using namespace ref;
    using detail::kNormEps;
    const int64_t n = ids.size(), d = c.hidden, hd = c.headDim();
    const int heads = c.heads;
    const auto& wte = w.at("transformer.wte.weight");
    Mat x(n, std::vector<double>(d));
    for (int64_t t = 0; t < n; ++t)
        for (int64_t i = 0; i < d; ++i)
            x[t][i] = wte.values[ids[t] * d + i];
    x = rms(x, nullptr, kNormEps);
    const auto [cosT, sinT] = detail::rotaryTables(n, int(hd));
    const double scale = 1.0 / std::sqrt(double(hd));

    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("transformer.h.{}.attn.", l);
        const auto a = rms(x, nullptr, kNormEps);
        Mat q = linear(a, w.at(p + "c_q.weight"));
        Mat k, v;
        if (c.kShift) {
            k = detail::tokenShift(linear(a, w.at(p + "c_k.linear.weight")),
                                   linear(a, w.at(p + "c_k.shift_proj.weight")), heads);
        } else {
            k = linear(a, w.at(p + "c_k.weight"));
        }
        if (c.vShift) {
            v = detail::tokenShift(linear(a, w.at(p + "v_proj.linear.weight")),
                                   linear(a, w.at(p + "v_proj.shift_proj.weight")), heads);
        } else {
            v = linear(a, w.at(p + "c_v.weight"));
        }
        // Rotary, then QK RMSNorm over each head's d_h features.
        for (Mat* m : {&q, &k})
            for (int64_t t = 0; t < n; ++t)
                for (int h = 0; h < heads; ++h) {
                    double* head = (*m)[t].data() + h * hd;
                    const int64_t half = hd / 2;
                    double ms = 0.0;
                    for (int64_t i = 0; i < half; ++i) {
                        const double x1 = head[i], x2 = head[i + half];
                        head[i] = x1 * cosT[t][i] + x2 * sinT[t][i];
                        head[i + half] = -x1 * sinT[t][i] + x2 * cosT[t][i];
                    }
                    for (int64_t i = 0; i < hd; ++i)
                        ms += head[i] * head[i];
                    const double inv = 1.0 / std::sqrt(ms / double(hd) + kNormEps);
                    for (int64_t i = 0; i < hd; ++i)
                        head[i] *= inv;
                }
        // U = cumsum(log lambda) per head; zero without the gate.
        std::vector<std::vector<double>> u(heads, std::vector<double>(n, 0.0));
        if (c.gate) {
            const auto logit =
                linear(a, w.at(p + "fgate_proj.weight"), &w.at(p + "fgate_proj.bias"));
            const auto& lambda = w.at(p + "weight_lambda");  // [d, H], x @ W
            for (int h = 0; h < heads; ++h) {
                double running = 0.0;
                for (int64_t t = 0; t < n; ++t) {
                    double z = 0.0;
                    for (int64_t i = 0; i < d; ++i)
                        z += a[t][i] * lambda.values[i * heads + h];
                    const double beta = (z > 0 ? z : std::expm1(z)) + 1.0;
                    running += hooks.logGate(
                        l, h, t, 0, detail::logSigmoid(logit[t][h] * beta) * (1.0 / (beta + 1e-3)));
                    u[h][t] = running;
                }
            }
        }
        Mat y(n, std::vector<double>(d, 0.0));
        for (int h = 0; h < heads; ++h)
            for (int64_t i = 0; i < n; ++i) {
                const int64_t first = c.window > 0 ? std::max<int64_t>(0, i - c.window + 1) : 0;
                std::vector<double> s(i + 1 - first);
                double peak = -std::numeric_limits<double>::infinity(), sum = 0.0;
                for (int64_t j = first; j <= i; ++j) {
                    double dot = 0.0;
                    for (int64_t e = 0; e < hd; ++e)
                        dot += q[i][h * hd + e] * k[j][h * hd + e];
                    s[j - first] = scale * dot + u[h][i] - u[h][j];
                    peak = std::max(peak, s[j - first]);
                }
                for (auto& e : s)
                    sum += e = std::exp(e - peak);
                for (int64_t j = first; j <= i; ++j)
                    for (int64_t e = 0; e < hd; ++e)
                        y[i][h * hd + e] += s[j - first] / sum * v[j][h * hd + e];
            }
        for (int h = 0; h < heads; ++h)
            if (hooks.ablated(l, h))
                for (int64_t t = 0; t < n; ++t)
                    std::fill(y[t].begin() + h * hd, y[t].begin() + (h + 1) * hd, 0.0);
        const auto o = linear(y, w.at(p + "c_proj.weight"));
        for (int64_t t = 0; t < n; ++t)
            for (int64_t i = 0; i < d; ++i)
                x[t][i] += o[t][i];
        const std::string mp = fmt::format("transformer.h.{}.mlp.", l);
        auto hidden = linear(rms(x, nullptr, kNormEps), w.at(mp + "c_fc.weight"));
        for (auto& row : hidden)
            for (auto& e : row)
                e = e > 0 ? e * e : 0.0;
        const auto m = linear(hidden, w.at(mp + "c_proj.weight"));
        for (int64_t t = 0; t < n; ++t)
            for (int64_t i = 0; i < d; ++i)
                x[t][i] += m[t][i];
    }
    const auto all = linear(rms(x, nullptr, kNormEps), w.at("lm_head.weight"));  // [n, V_pad]
    RefOutput out;
    out.logitsRaw.reserve(n * c.vocab);
    out.loss.assign(n, std::numeric_limits<double>::quiet_NaN());
    out.lossPadded = out.loss;
    for (int64_t t = 0; t < n; ++t) {
        out.logitsRaw.insert(out.logitsRaw.end(), all[t].begin(), all[t].begin() + c.vocab);
        if (t < int64_t(targets.size()) && targets[t] >= 0) {
            out.loss[t] = detail::crossEntropy(all[t], c.vocab, targets[t]);
            out.lossPadded[t] = detail::crossEntropy(all[t], all[t].size(), targets[t]);
        }
    }
    return out;
}

}  // namespace gatescope::test::gatedfwa
