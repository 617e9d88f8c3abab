// Test-only: a dense float64 implementation of power-attention's train/model.py GPT (3bd1a80),
// written from the official code (and the spec's §1.2 / §2.3), with no LibTorch and no gatescope
// model code. Used to check config variants the official fixture does not cover (GQA, no bias,
// no gating, the sdpa kernel, degree 4).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference_hooks.h"

namespace gatescope::test::power {

struct RefConfig {
    int vocab = 0, layers = 0, kvHeads = 0, ratio = 1, headDim = 0, hidden = 0;
    bool bias = true, gating = true, sdpa = false;
    int degree = 2;
    int mlp() const { return static_cast<int>(3.5 * hidden); }
    int heads() const { return ratio * kvHeads; }
};

using Weights = std::map<std::string, std::vector<float>>;

struct RefLayer {
    std::vector<double> q, k, v;  // [N, H or Hkv, d] after rotary
    std::vector<double> logG;     // [N, Hkv]
};

struct RefOutput {
    std::vector<double> logits;  // [N, V]
    std::vector<double> loss;    // [N]: -log softmax(logits)[target], NaN without a target
    std::vector<RefLayer> layers;
};

namespace detail {

inline std::vector<double> linear(const std::vector<double>& x, int64_t n, int in, int out,
                                  const std::vector<float>& w, const std::vector<float>* b) {
    std::vector<double> y(n * out);
    for (int64_t r = 0; r < n; ++r)
        for (int o = 0; o < out; ++o) {
            double s = b ? double((*b)[o]) : 0.0;
            for (int i = 0; i < in; ++i)
                s += x[r * in + i] * double(w[o * in + i]);
            y[r * out + o] = s;
        }
    return y;
}

inline std::vector<double> layerNorm(const std::vector<double>& x, int64_t n, int d,
                                     const std::vector<float>& w, const std::vector<float>* b) {
    std::vector<double> y(x.size());
    for (int64_t r = 0; r < n; ++r) {
        double mean = 0, var = 0;
        for (int i = 0; i < d; ++i)
            mean += x[r * d + i];
        mean /= d;
        for (int i = 0; i < d; ++i)
            var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
        var /= d;
        for (int i = 0; i < d; ++i)
            y[r * d + i] =
                (x[r * d + i] - mean) / std::sqrt(var + 1e-9) * w[i] + (b ? (*b)[i] : 0.0);
    }
    return y;
}

/// get_sinusoidal_embeddings + apply_rotary_position_embeddings on [N, heads, d] (in place).
/// The official tables are float32 all the way: div_term = 2 pi / T^(2i/d) (torch evaluates
/// `2 pi / tensor` as reciprocal(tensor) * 2 pi), angle = float32(t) * div_term rounded to
/// float32, then sin and cos. Past a few hundred positions that rounding moves the fast pairs'
/// angles by up to ~1e-4 rad, so it is part of what the official model computes.
inline void rotary(std::vector<double>& x, int64_t n, int heads, int d) {
    const float twoPi = static_cast<float>(2.0 * M_PI);
    for (int i = 0; i < d / 2; ++i) {
        const float exponent = float(2 * i) / float(d);
        const float power = static_cast<float>(std::pow(double(float(n)), double(exponent)));
        const float divTerm = (1.0f / power) * twoPi;
        for (int64_t t = 0; t < n; ++t) {
            const float angle = float(t) * divTerm;
            const double sn = static_cast<float>(std::sin(double(angle)));
            const double cs = static_cast<float>(std::cos(double(angle)));
            for (int h = 0; h < heads; ++h) {
                double& a = x[(t * heads + h) * d + 2 * i];
                double& b = x[(t * heads + h) * d + 2 * i + 1];
                const double ea = a * cs - b * sn;
                const double eb = b * cs + a * sn;
                a = ea;
                b = eb;
            }
        }
    }
}

}  // namespace detail

/// Runs the model on `ids` in float64; `targets[i] < 0` (or i past its end) means no target
/// (GPT.forward's F.cross_entropy over the logits, natural log).
/// `hooks` change the gates (per kv head) and drop heads (reference_hooks.h).
inline RefOutput runReference(const RefConfig& c, const Weights& w, const std::vector<int>& ids,
                              const std::vector<int>& targets = {}, const RefHooks& hooks = {}) {
    using namespace detail;
    const int64_t n = ids.size();
    const int d = c.headDim, hkv = c.kvHeads, hq = c.heads(), dm = c.hidden;
    auto bias = [&](const std::string& name) { return c.bias ? &w.at(name) : nullptr; };
    RefOutput out;
    std::vector<double> x(n * dm);
    for (int64_t t = 0; t < n; ++t)
        for (int i = 0; i < dm; ++i)
            x[t * dm + i] = w.at("transformer.wte.weight")[ids[t] * dm + i];

    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        auto a = layerNorm(x, n, dm, w.at(p + "ln_1.weight"), bias(p + "ln_1.bias"));
        const int width = (hq + 2 * hkv) * d + (c.gating ? hkv : 0);
        auto qkvg =
            linear(a, n, dm, width, w.at(p + "attn.c_attn.weight"), bias(p + "attn.c_attn.bias"));
        RefLayer rec;
        rec.q.resize(n * hq * d);
        rec.k.resize(n * hkv * d);
        rec.v.resize(n * hkv * d);
        rec.logG.assign(n * hkv, 0.0);
        for (int64_t t = 0; t < n; ++t) {
            const double* row = qkvg.data() + t * width;
            std::copy(row, row + hq * d, rec.q.begin() + t * hq * d);
            std::copy(row + hq * d, row + (hq + hkv) * d, rec.k.begin() + t * hkv * d);
            std::copy(row + (hq + hkv) * d, row + (hq + 2 * hkv) * d, rec.v.begin() + t * hkv * d);
            for (int h = 0; h < hkv && c.gating; ++h) {
                const double z = 6.906768 + row[(hq + 2 * hkv) * d + h];
                rec.logG[t * hkv + h] = hooks.logGate(l, h, t, 0, -std::log1p(std::exp(-z)));
            }
        }
        rotary(rec.q, n, hq, d);
        rotary(rec.k, n, hkv, d);
        std::vector<double> y(n * hq * d, 0.0);
        const double scale = 1.0 / std::sqrt(double(d));
        for (int h = 0; h < hq; ++h) {
            const int kv = h / c.ratio;
            std::vector<double> g(n, 0.0);
            for (int64_t t = 0; t < n; ++t)
                g[t] = (t ? g[t - 1] : 0.0) + rec.logG[t * hkv + kv];
            for (int64_t i = 0; i < n; ++i) {
                std::vector<double> wts(i + 1);
                double largest = -1e300, sum = 0;
                for (int64_t j = 0; j <= i; ++j) {
                    double dot = 0;
                    for (int e = 0; e < d; ++e)
                        dot += rec.q[(i * hq + h) * d + e] * rec.k[(j * hkv + kv) * d + e];
                    // sdpa: softmax scores; power: log of (|scale q.k| + 1e-7)^p e^{G_i - G_j}.
                    wts[j] = c.sdpa
                                 ? scale * dot
                                 : c.degree * std::log(std::abs(scale * dot) + 1e-7) + g[i] - g[j];
                    largest = std::max(largest, wts[j]);
                }
                // No epsilon on the row sum: at 3bd1a80 neither the Triton kernel that
                // power_full runs nor _attention/reference.py adds one (later versions add 1e-6).
                for (auto& s : wts)
                    sum += s = std::exp(s - largest);
                for (int64_t j = 0; j <= i; ++j)
                    for (int e = 0; e < d; ++e)
                        y[(i * hq + h) * d + e] += wts[j] / sum * rec.v[(j * hkv + kv) * d + e];
            }
        }
        for (int h = 0; h < hq; ++h)
            if (hooks.ablated(l, h))
                for (int64_t t = 0; t < n; ++t)
                    std::fill_n(y.begin() + (t * hq + h) * d, d, 0.0);
        auto o =
            linear(y, n, hq * d, dm, w.at(p + "attn.c_proj.weight"), bias(p + "attn.c_proj.bias"));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] += o[i];
        auto m = layerNorm(x, n, dm, w.at(p + "ln_2.weight"), bias(p + "ln_2.bias"));
        auto f = linear(m, n, dm, c.mlp(), w.at(p + "mlp.c_fc.weight"), bias(p + "mlp.c_fc.bias"));
        for (auto& e : f)
            e = 0.5 * e * (1.0 + std::erf(e / std::sqrt(2.0)));  // exact GELU
        auto o2 =
            linear(f, n, c.mlp(), dm, w.at(p + "mlp.c_proj.weight"), bias(p + "mlp.c_proj.bias"));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] += o2[i];
        out.layers.push_back(std::move(rec));
    }
    auto hidden =
        layerNorm(x, n, dm, w.at("transformer.ln_f.weight"), bias("transformer.ln_f.bias"));
    out.logits = linear(hidden, n, dm, c.vocab, w.at("transformer.wte.weight"), nullptr);
    out.loss.assign(n, std::nan(""));
    for (int64_t t = 0; t < n && t < int64_t(targets.size()); ++t) {
        if (targets[t] < 0) continue;
        const double* row = out.logits.data() + t * c.vocab;
        const double peak = *std::max_element(row, row + c.vocab);
        double sum = 0;
        for (int j = 0; j < c.vocab; ++j)
            sum += std::exp(row[j] - peak);
        out.loss[t] = peak + std::log(sum) - row[targets[t]];
    }
    return out;
}

}  // namespace gatescope::test::power
