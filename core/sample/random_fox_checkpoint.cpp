#include "core/sample/random_fox_checkpoint.h"

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_writer.h"

namespace gatescope::core {

namespace {

class TensorBuilder {
public:
    explicit TensorBuilder(uint64_t seed) : m_rng(seed) {}

    void normal(const std::string& name, std::vector<int64_t> shape, double stddev) {
        auto& values = add(name, std::move(shape));
        std::normal_distribution<float> dist(0.0f, static_cast<float>(stddev));
        for (auto& v : values)
            v = dist(m_rng);
    }
    void constant(const std::string& name, std::vector<int64_t> shape, float value) {
        auto& values = add(name, std::move(shape));
        std::fill(values.begin(), values.end(), value);
    }
    std::vector<float>& add(const std::string& name, std::vector<int64_t> shape) {
        int64_t numel = 1;
        for (auto d : shape)
            numel *= d;
        m_names.push_back(name);
        m_shapes.push_back(std::move(shape));
        m_values.emplace_back(static_cast<std::size_t>(numel));
        return m_values.back();
    }
    Status write(const std::filesystem::path& path) const {
        std::vector<TensorToWrite> tensors;
        for (std::size_t i = 0; i < m_names.size(); ++i) {
            tensors.push_back({m_names[i], DType::F32, m_shapes[i],
                               std::as_bytes(std::span<const float>(m_values[i]))});
        }
        return writeSafetensors(path, tensors, {{"format", "pt"}});
    }

private:
    std::mt19937_64 m_rng;
    std::vector<std::string> m_names;
    std::vector<std::vector<int64_t>> m_shapes;
    std::vector<std::vector<float>> m_values;  // deque-like stability not needed: filled in place
};

int intermediateSize(int hidden, double ratio) {
    const int raw = static_cast<int>(hidden * ratio * 2.0 / 3.0);
    return 256 * ((raw + 255) / 256);
}

}  // namespace

Status writeRandomFoxCheckpoint(const std::filesystem::path& dir, const RandomFoxSpec& s) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{ErrorKind::Io, "cannot create folder: " + ec.message(), dir.string(), {}};

    const int64_t d = s.hiddenSize, h = s.heads, hd = d / h, v = s.vocabSize;
    const int64_t inter = intermediateSize(s.hiddenSize, s.hiddenRatio);
    const double std = 0.02;
    TensorBuilder b(s.seed);
    b.normal("model.embeddings.weight", {v, d}, 1.0);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        b.constant(p + "attn_norm.weight", {d}, 1.0f);
        b.constant(p + "mlp_norm.weight", {d}, 1.0f);
        b.normal(p + "attn.q_proj.weight", {d, d}, 4 * std);
        b.normal(p + "attn.o_proj.weight", {d, d}, std);
        if (s.pro) {
            b.normal(p + "attn.k_proj.linear.weight", {d, d}, 4 * std);
            b.normal(p + "attn.k_proj.shift_proj.weight", {h, d}, std);
            b.normal(p + "attn.v_proj.linear.weight", {d, d}, std);
            b.normal(p + "attn.v_proj.shift_proj.weight", {h, d}, std);
            b.normal(p + "attn.ogate_proj.weight", {d, d}, std);
            b.constant(p + "attn.output_norm.weight", {d}, 1.0f);
            b.constant(p + "attn.q_norm.weight", {hd}, 2.0f);
            b.constant(p + "attn.k_norm.weight", {hd}, 2.0f);
        } else {
            b.normal(p + "attn.k_proj.weight", {d, d}, 4 * std);
            b.normal(p + "attn.v_proj.weight", {d, d}, std);
        }
        if (s.forgetGate) {
            b.normal(p + "attn.fgate_proj.weight", {h, d}, 0.5);
            // Biases from sigmoid^-1 of fast to slow decay, so heads range from local to global.
            auto& bias = b.add(p + "attn.fgate_proj.bias", {h});
            for (int64_t i = 0; i < h; ++i)
                bias[i] = -1.0f + 8.0f * i / std::max<int64_t>(1, h - 1);
        }
        b.normal(p + "mlp.gate_proj.weight", {2 * inter, d}, std);
        b.normal(p + "mlp.down_proj.weight", {d, inter}, std);
    }
    b.constant("model.norm.weight", {d}, 1.0f);
    b.normal("lm_head.weight", {v, d}, std);
    if (auto st = b.write(dir / "model.safetensors"); !st) return st;

    nlohmann::json config = {
        {"model_type", "forgetting_transformer-project_fox"},
        {"architectures", {"ForgettingTransformerForCausalLM"}},
        {"vocab_size", v},
        {"hidden_size", d},
        {"num_hidden_layers", s.layers},
        {"num_heads", h},
        {"num_kv_heads", nullptr},
        {"hidden_ratio", s.hiddenRatio},
        {"intermediate_size", nullptr},
        {"hidden_act", "swish"},
        {"norm_eps", 1e-6},
        {"use_rope", !s.forgetGate},
        {"rope_base", 500000.0},
        {"fgate_type", s.forgetGate ? "full" : "none"},
        {"use_output_gate", s.pro},
        {"ogate_act", "sigmoid"},
        {"use_output_norm", s.pro},
        {"qk_norm", s.pro},
        {"qk_norm_share_param_across_head", s.pro},
        {"use_k_shift", s.pro},
        {"use_v_shift", s.pro},
        {"tie_word_embeddings", false},
        {"gatescope_note", "random weights written by gatescope (not a trained model)"}};
    if (v == 256) config["gatescope_tokenizer"] = "byte";
    std::ofstream out(dir / "config.json");
    out << config.dump(2) << "\n";
    if (!out.good()) {
        return Error{ErrorKind::Io, "cannot write", (dir / "config.json").string(), {}};
    }
    return Ok{};
}

}  // namespace gatescope::core
