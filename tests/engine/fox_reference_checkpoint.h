// Test support for fox_reference_model.h: the options of the official ForgettingTransformerConfig
// (model/forgetting_transformer/) and TransformerConfig (model/transformer/), their config.json as
// the official classes write it, random weights under the official state-dict names, and the
// official fixtures read back into the same structures. Independent of engine/models/fox.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "reference_model_support.h"

namespace gatescope::test::fox {

/// One model of either official class; defaults are small test sizes with the FoX defaults.
struct RefConfig {
    bool transformer = false;  ///< model_type "transformer-project_fox" (TransformerForCausalLM)
    int vocab = 61, d = 32, layers = 2, heads = 4;
    int kvHeads = 0;           ///< 0: num_kv_heads null (= heads); Transformer only
    int window = 0;            ///< 0: window_size null; Transformer only
    double hiddenRatio = 4.0;  ///< used when intermediate is 0
    int intermediate = 0;      ///< 0: intermediate_size null
    std::string hiddenAct = "swish";
    double normEps = 1e-6;
    bool tie = false;
    bool rope = false;
    double ropeBase = 500000.0;
    bool outputGate = false;
    std::string ogateAct = "sigmoid";
    bool outputNorm = false;
    std::string fgate = "full";  ///< full, bias_only, fixed, none (FoX only)
    bool qkNorm = false, qkShared = false, kShift = false, vShift = false;

    int headDim() const { return d / heads; }
    int kv() const { return kvHeads > 0 ? kvHeads : heads; }
    /// ForgettingTransformerMLP / TransformerMLP: 256 * ceil(int(d * ratio * 2 / 3) / 256).
    int inter() const {
        if (intermediate > 0) return intermediate;
        const int raw = static_cast<int>(d * hiddenRatio * 2 / 3);
        return 256 * ((raw + 255) / 256);
    }
    bool hasForgetGate() const { return !transformer && fgate != "none"; }
};

/// config.json with every key of the official __init__ (as save_pretrained writes them).
inline nlohmann::json refConfigJson(const RefConfig& c) {
    using nlohmann::json;
    const auto nullIfZero = [](auto v) { return v ? json(v) : json(nullptr); };
    json j = {{"vocab_size", c.vocab},
              {"hidden_size", c.d},
              {"hidden_ratio", c.hiddenRatio},
              {"intermediate_size", nullIfZero(c.intermediate)},
              {"num_hidden_layers", c.layers},
              {"num_heads", c.heads},
              {"num_kv_heads", nullIfZero(c.kvHeads)},
              {"hidden_act", c.hiddenAct},
              {"window_size", nullIfZero(c.window)},
              {"max_position_embeddings", 2048},
              {"initializer_range", 0.02},
              {"elementwise_affine", true},
              {"norm_eps", c.normEps},
              {"use_cache", true},
              {"pad_token_id", nullptr},
              {"bos_token_id", 1},
              {"eos_token_id", 2},
              {"tie_word_embeddings", c.tie},
              {"attention_bias", false},
              {"fuse_norm", true},
              {"fuse_cross_entropy", true},
              {"rope_base", c.ropeBase},
              {"use_rope", c.rope},
              {"transformers_version", "4.44.0"}};
    if (c.transformer) {
        j["model_type"] = "transformer-project_fox";
        j["architectures"] = {"TransformerForCausalLM"};
        return j;
    }
    const bool biasInit = c.fgate == "fixed";  // the official layer asserts it for "fixed"
    j.update(json{{"model_type", "forgetting_transformer-project_fox"},
                  {"architectures", {"ForgettingTransformerForCausalLM"}},
                  {"use_output_gate", c.outputGate},
                  {"ogate_act", c.ogateAct},
                  {"fgate_type", c.fgate},
                  {"fgate_bias_init", biasInit},
                  {"decay_time_min", biasInit ? json(2.0) : json(nullptr)},
                  {"decay_time_max", biasInit ? json(128.0) : json(nullptr)},
                  {"use_output_norm", c.outputNorm},
                  {"qk_norm", c.qkNorm},
                  {"qk_norm_share_param_across_head", c.qkShared},
                  {"use_k_shift", c.kShift},
                  {"use_v_shift", c.vShift},
                  {"log_pruning_tolerance", nullptr}});
    return j;
}

/// Random, deliberately non-trivial weights (peaked attention, gates from fast to slow decay,
/// norm scales away from 1) under the official names for `c`.
inline TensorMap randomRefWeights(const RefConfig& c, unsigned seed) {
    TensorMap w;
    RandomTensors r(w, seed);
    const int64_t d = c.d, h = c.heads, hd = c.headDim(), kvDim = int64_t{c.kv()} * hd;
    r.add("model.embeddings.weight", {c.vocab, d}, 1.0);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        r.add(p + "attn_norm.weight", {d}, 0.2, 1.0);
        r.add(p + "mlp_norm.weight", {d}, 0.2, 1.0);
        r.add(p + "attn.q_proj.weight", {d, d}, 0.5);
        r.add(p + (c.kShift ? "attn.k_proj.linear.weight" : "attn.k_proj.weight"), {kvDim, d}, 0.5);
        r.add(p + (c.vShift ? "attn.v_proj.linear.weight" : "attn.v_proj.weight"), {kvDim, d}, 0.3);
        if (c.kShift) r.add(p + "attn.k_proj.shift_proj.weight", {h, d}, 0.5);
        if (c.vShift) r.add(p + "attn.v_proj.shift_proj.weight", {h, d}, 0.5);
        r.add(p + "attn.o_proj.weight", {d, d}, 0.3);
        if (c.hasForgetGate() && c.fgate == "full") {
            r.add(p + "attn.fgate_proj.weight", {h, d}, 0.3);
            r.add(p + "attn.fgate_proj.bias", {h}, 1.5, 1.5);
        } else if (c.hasForgetGate()) {
            r.add(p + "attn.fgate_bias", {h}, 1.5, 1.0);
        }
        if (c.outputGate) r.add(p + "attn.ogate_proj.weight", {d, d}, 0.5);
        if (c.outputNorm) r.add(p + "attn.output_norm.weight", {d}, 0.2, 1.0);
        if (c.qkNorm) {
            const int64_t width = c.qkShared ? hd : d;
            r.add(p + "attn.q_norm.weight", {width}, 0.3, 1.5);
            r.add(p + "attn.k_norm.weight", {width}, 0.3, 1.5);
        }
        r.add(p + "mlp.gate_proj.weight", {2 * int64_t{c.inter()}, d}, 0.3);
        r.add(p + "mlp.down_proj.weight", {d, c.inter()}, 0.3);
    }
    r.add("model.norm.weight", {d}, 0.2, 1.0);
    if (!c.tie) r.add("lm_head.weight", {c.vocab, d}, 0.3);
    return w;
}

/// The options of an official config.json, with the official class defaults for absent keys.
inline RefConfig refConfigFromJson(const nlohmann::json& j) {
    RefConfig c;
    const auto get = [&](const char* key, auto fallback) {
        auto it = j.find(key);
        return it == j.end() || it->is_null() ? fallback : it->get<decltype(fallback)>();
    };
    c.transformer = j.at("model_type") == "transformer-project_fox";
    c.vocab = get("vocab_size", 32000);
    c.d = get("hidden_size", 2048);
    c.layers = get("num_hidden_layers", 24);
    c.heads = get("num_heads", 32);
    c.kvHeads = get("num_kv_heads", 0);
    c.window = get("window_size", 0);
    c.hiddenRatio = get("hidden_ratio", 4.0);
    c.intermediate = get("intermediate_size", 0);
    c.hiddenAct = get("hidden_act", std::string("swish"));
    c.normEps = get("norm_eps", 1e-6);
    c.tie = get("tie_word_embeddings", false);
    c.rope = get("use_rope", c.transformer);
    c.ropeBase = get("rope_base", 500000.0);
    c.outputGate = get("use_output_gate", false);
    c.ogateAct = get("ogate_act", std::string("sigmoid"));
    c.outputNorm = get("use_output_norm", false);
    c.fgate = get("fgate_type", std::string("full"));
    c.qkNorm = get("qk_norm", false);
    c.qkShared = get("qk_norm_share_param_across_head", false);
    c.kShift = get("use_k_shift", false);
    c.vShift = get("use_v_shift", false);
    return c;
}

}  // namespace gatescope::test::fox
