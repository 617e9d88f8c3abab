// Test support: a whole fla GSA language model in float64, written from the layer recipe of the
// spec (gated-slot-attention.md section 7.3) with the per-token slot recurrence, plus random
// checkpoints for it. Independent of engine/models/gsa; small sizes only.
#pragma once

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reference_hooks.h"
#include "reference_model_support.h"

namespace gatescope::test {

struct GsaRefConfig {
    int vocab = 61, d = 32, layers = 2, heads = 2, kvHeads = 2, slots = 6, inter = 40;
    int hkd = 16, hvd = 16;  ///< head key / value dims
    double tau = 8.0, eps = 1e-6;
    std::string featureMap = "swish";  ///< swish, relu, t2r
    int convSize = 0;                  ///< 0: no short convolution
    bool affine = true, tie = false, legacyNames = false;
};

/// Random weights under the official names (current, or paper-era with legacyNames).
inline TensorMap randomGsaWeights(const GsaRefConfig& c, unsigned seed) {
    TensorMap w;
    RandomTensors random(w, seed);
    auto add = [&](const std::string& name, std::vector<int64_t> shape, double stddev,
                   double mean = 0.0) { random.add(name, std::move(shape), stddev, mean); };
    const int64_t d = c.d, kDim = c.kvHeads * c.hkd, vDim = c.kvHeads * c.hvd;
    add("model.embeddings.weight", {c.vocab, d}, 1.0);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        add(p + (c.legacyNames ? "attn.norm.weight" : "attn_norm.weight"), {d}, 0.2, 1.0);
        add(p + (c.legacyNames ? "mlp.norm.weight" : "mlp_norm.weight"), {d}, 0.2, 1.0);
        add(p + "attn.q_proj.weight", {c.heads * c.hkd, d}, 0.4);
        add(p + "attn.k_proj.weight", {kDim, d}, 0.4);
        add(p + "attn.v_proj.weight", {vDim, d}, 0.3);
        add(p + "attn.f_proj.weight", {c.kvHeads * c.slots, d}, 0.6);
        add(p + "attn.o_proj.weight", {d, c.heads * c.hvd}, 0.3);
        if (c.affine) add(p + "attn.g_norm.weight", {c.heads * c.hvd}, 0.2, 1.0);
        if (c.convSize > 0) {
            add(p + "attn.q_conv1d.weight", {c.heads * c.hkd, 1, c.convSize}, 0.5);
            add(p + "attn.k_conv1d.weight", {kDim, 1, c.convSize}, 0.5);
            add(p + "attn.v_conv1d.weight", {vDim, 1, c.convSize}, 0.5);
        }
        if (c.featureMap == "t2r") add(p + "attn.feature_map.layer.weight", {c.hkd, c.hkd}, 0.4);
        if (c.legacyNames) {
            add(p + "mlp.gate_proj.weight", {2 * c.inter, d}, 0.3);
        } else {
            add(p + "mlp.gate_proj.weight", {c.inter, d}, 0.3);
            add(p + "mlp.up_proj.weight", {c.inter, d}, 0.3);
        }
        add(p + "mlp.down_proj.weight", {d, c.inter}, 0.3);
    }
    add("model.norm.weight", {d}, 0.2, 1.0);
    if (!c.tie) add("lm_head.weight", {c.vocab, d}, 0.3);
    return w;
}

/// Writes config.json (merged over the official keys for `c`) and model.safetensors into `dir`.
inline void writeGsaCheckpoint(const std::filesystem::path& dir, const GsaRefConfig& c,
                               const TensorMap& weights, const nlohmann::json& overrides = {}) {
    nlohmann::json config = {{"model_type", "gsa"},
                             {"vocab_size", c.vocab},
                             {"hidden_size", c.d},
                             {"num_hidden_layers", c.layers},
                             {"num_heads", c.heads},
                             {"num_kv_heads", c.kvHeads},
                             {"num_slots", c.slots},
                             {"intermediate_size", c.inter},
                             {"norm_eps", c.eps},
                             {"gate_logit_normalizer", c.tau},
                             {"feature_map", c.featureMap},
                             {"use_short_conv", c.convSize > 0},
                             {"conv_size", c.convSize > 0 ? c.convSize : 4},
                             {"elementwise_affine", c.affine},
                             {"tie_word_embeddings", c.tie},
                             {"expand_k", double(c.heads * c.hkd) / c.d},
                             {"expand_v", double(c.heads * c.hvd) / c.d},
                             {"hidden_act", "swish"},
                             {"attn", nullptr},
                             {"bos_token_id", 1}};
    if (c.legacyNames) config["norm_first"] = true;
    for (const auto& [key, value] : overrides.items())
        config[key] = value;
    writeCheckpoint(dir, config, weights);
}

/// fla GatedMLP's intermediate size when config.json has intermediate_size null: a multiple of
/// 256 at or above int(hidden_size * hidden_ratio * 2 / 3) (fla/modules/mlp.py), evaluated left
/// to right in double precision as Python does.
inline int officialIntermediateSize(int hidden, double hiddenRatio) {
    const int raw = static_cast<int>(hidden * hiddenRatio * 2 / 3);
    return 256 * ((raw + 256 - 1) / 256);
}

namespace gsaref = ref;

/// Logits [n][vocab] of the model in float64. `hooks` change each slot's decay alpha (gate head =
/// kv head, channel = slot; the write weight 1 - alpha stays the model's) and drop heads
/// (reference_hooks.h).
inline gsaref::Mat gsaReferenceLogits(const GsaRefConfig& c, const TensorMap& w,
                                      const std::vector<int32_t>& ids, const RefHooks& hooks = {}) {
    using namespace gsaref;
    const int64_t n = ids.size(), m = c.slots, group = c.heads / c.kvHeads;
    const auto& emb = w.at("model.embeddings.weight");
    Mat x(n, std::vector<double>(c.d));
    for (int64_t t = 0; t < n; ++t)
        for (int i = 0; i < c.d; ++i)
            x[t][i] = emb.values[ids[t] * c.d + i];
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        auto a =
            rms(x, &w.at(p + (c.legacyNames ? "attn.norm.weight" : "attn_norm.weight")), c.eps);
        Mat q = linear(a, w.at(p + "attn.q_proj.weight")),
            k = linear(a, w.at(p + "attn.k_proj.weight"));
        Mat v = linear(a, w.at(p + "attn.v_proj.weight")),
            f = linear(a, w.at(p + "attn.f_proj.weight"));
        if (c.convSize > 0) {
            for (auto [mat, name] : {std::pair{&q, "q"}, {&k, "k"}, {&v, "v"}}) {
                const auto& cw = w.at(p + "attn." + name + "_conv1d.weight");
                Mat y = *mat;
                for (int64_t t = 0; t < n; ++t)
                    for (std::size_t ch = 0; ch < y[t].size(); ++ch) {
                        double acc = 0.0;
                        for (int kk = 0; kk < c.convSize; ++kk) {
                            const int64_t src = t - (c.convSize - 1) + kk;
                            if (src >= 0) acc += cw.values[ch * c.convSize + kk] * (*mat)[src][ch];
                        }
                        y[t][ch] = silu(acc);
                    }
                *mat = y;
            }
        }
        auto feature = [&](Mat& z, int headsIn) {
            for (auto& row : z)
                for (int hh = 0; hh < headsIn; ++hh) {
                    std::vector<double> head(row.begin() + hh * c.hkd,
                                             row.begin() + (hh + 1) * c.hkd);
                    if (c.featureMap == "t2r")
                        head = linear({head}, w.at(p + "attn.feature_map.layer.weight"))[0];
                    for (int i = 0; i < c.hkd; ++i) {
                        const double e = head[i];
                        row[hh * c.hkd + i] = c.featureMap == "swish" ? silu(e) : std::max(0.0, e);
                    }
                }
        };
        feature(q, c.heads);
        feature(k, c.kvHeads);
        for (auto& row : v)
            for (auto& e : row)
                e = silu(e);
        Mat o(n, std::vector<double>(c.heads * c.hvd, 0.0));
        for (int h = 0; h < c.heads; ++h) {
            const int kv = h / group;
            Mat sk(m, std::vector<double>(c.hkd, 0.0)), sv(m, std::vector<double>(c.hvd, 0.0));
            for (int64_t t = 0; t < n; ++t) {
                std::vector<double> score(m);
                for (int64_t j = 0; j < m; ++j) {
                    const double logAlpha = -std::log1p(std::exp(-f[t][kv * m + j])) / c.tau;
                    const double s = 1.0 - std::exp(logAlpha);
                    const double alpha =
                        std::exp(hooks.logGate(l, kv, t, static_cast<int>(j), logAlpha));
                    for (int i = 0; i < c.hkd; ++i)
                        sk[j][i] = alpha * sk[j][i] + s * k[t][kv * c.hkd + i];
                    for (int i = 0; i < c.hvd; ++i)
                        sv[j][i] = alpha * sv[j][i] + s * v[t][kv * c.hvd + i];
                    score[j] = 0.0;
                    for (int i = 0; i < c.hkd; ++i)
                        score[j] += sk[j][i] * q[t][h * c.hkd + i];
                }
                double mx = score[0], sum = 0.0;
                for (double e : score)
                    mx = std::max(mx, e);
                for (double e : score)
                    sum += std::exp(e - mx);
                for (int64_t j = 0; j < m; ++j)
                    for (int i = 0; i < c.hvd; ++i)
                        o[t][h * c.hvd + i] += std::exp(score[j] - mx) / sum * sv[j][i];
            }
        }
        for (auto& row : o)
            for (auto& e : row)
                e = silu(e);
        // fla's rms_norm_linear is called without g_norm's eps: its default 1e-5 applies.
        o = rms(o, c.affine ? &w.at(p + "attn.g_norm.weight") : nullptr, 1e-5);
        for (int h = 0; h < c.heads; ++h)
            if (hooks.ablated(l, h))
                for (int64_t t = 0; t < n; ++t)
                    std::fill(o[t].begin() + h * c.hvd, o[t].begin() + (h + 1) * c.hvd, 0.0);
        auto y = linear(o, w.at(p + "attn.o_proj.weight"));
        for (int64_t t = 0; t < n; ++t)
            for (int i = 0; i < c.d; ++i)
                x[t][i] += y[t][i];
        auto mIn =
            rms(x, &w.at(p + (c.legacyNames ? "mlp.norm.weight" : "mlp_norm.weight")), c.eps);
        Mat gate, up;
        if (c.legacyNames) {
            auto both = linear(mIn, w.at(p + "mlp.gate_proj.weight"));
            for (auto& row : both) {
                gate.emplace_back(row.begin(), row.begin() + c.inter);
                up.emplace_back(row.begin() + c.inter, row.end());
            }
        } else {
            gate = linear(mIn, w.at(p + "mlp.gate_proj.weight"));
            up = linear(mIn, w.at(p + "mlp.up_proj.weight"));
        }
        for (int64_t t = 0; t < n; ++t)
            for (int i = 0; i < c.inter; ++i)
                gate[t][i] = silu(gate[t][i]) * up[t][i];
        auto down = linear(gate, w.at(p + "mlp.down_proj.weight"));
        for (int64_t t = 0; t < n; ++t)
            for (int i = 0; i < c.d; ++i)
                x[t][i] += down[t][i];
    }
    auto hidden = rms(x, &w.at("model.norm.weight"), c.eps);
    return linear(hidden, w.at(c.tie ? "model.embeddings.weight" : "lm_head.weight"));
}

}  // namespace gatescope::test
