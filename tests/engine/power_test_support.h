// Test support for the power model: recording probe, scratch checkpoints written from a tensor
// map, random weights for a config, and the fixture's weights as a map.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_writer.h"
#include "fixture_support.h"
#include "power_reference_model.h"

namespace gatescope::test::power {

using test::headSlice;
using test::RecordingProbe;

/// A checkpoint folder in the fixture layout, written from `weights` (float32) and `config`.
/// Removed when destroyed.
class ScratchCheckpoint {
public:
    ScratchCheckpoint(const Weights& weights,
                      const std::map<std::string, std::vector<int64_t>>& shapes,
                      const nlohmann::json& config, const std::string& tag) {
        m_dir = std::filesystem::temp_directory_path() /
                ("gatescope_power_" + tag + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
        std::vector<core::TensorToWrite> tensors;
        for (const auto& [name, values] : weights) {
            core::TensorToWrite t;
            t.name = name;
            t.shape = shapes.at(name);
            t.bytes = std::as_bytes(std::span<const float>(values));
            tensors.push_back(t);
        }
        auto written = core::writeSafetensors(m_dir / "model.safetensors", tensors);
        if (!written) throw std::runtime_error(written.error().describe());
        std::ofstream(m_dir / "config.json") << config.dump(2);
    }
    ~ScratchCheckpoint() {
        std::error_code ignored;
        std::filesystem::remove_all(m_dir, ignored);
    }
    const std::filesystem::path& dir() const { return m_dir; }

private:
    std::filesystem::path m_dir;
};

/// Every tensor of a safetensors file as float32, with shapes.
inline void readAll(const std::filesystem::path& file, Weights& weights,
                    std::map<std::string, std::vector<int64_t>>& shapes) {
    auto opened = core::SafetensorsFile::open(file);
    if (!opened) throw std::runtime_error(opened.error().describe());
    for (const auto& [name, info] : (*opened)->tensors()) {
        weights[name] = core::toFloat32(info).value();
        shapes[name] = info.shape;
    }
}

/// The config.json train/model.py's GPTConfig would produce for `c`.
inline nlohmann::json configJson(const RefConfig& c) {
    return {{"model_type", "power"},
            {"model_config",
             {{"block_size", 128},
              {"vocab_size", c.vocab},
              {"n_layer", c.layers},
              {"n_head", c.kvHeads},
              {"n_embd", c.hidden},
              {"head_size", c.headDim},
              {"bias", c.bias},
              {"attention_kernel", c.sdpa ? "sdpa" : "power"},
              {"disable_gating", !c.gating},
              {"degree", c.degree},
              {"chunk_size", nullptr},
              {"qhead_ratio", c.ratio}}}};
}

/// Random non-trivial weights with train/model.py's names and shapes for `c`.
inline void randomWeights(const RefConfig& c, uint32_t seed, Weights& w,
                          std::map<std::string, std::vector<int64_t>>& shapes) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto add = [&](const std::string& name, std::vector<int64_t> shape, float mean, float sd) {
        int64_t count = 1;
        for (auto s : shape)
            count *= s;
        std::vector<float> values(count);
        for (auto& v : values)
            v = mean + sd * normal(rng);
        w[name] = std::move(values);
        shapes[name] = std::move(shape);
    };
    const int64_t dm = c.hidden, d = c.headDim;
    const int64_t width = int64_t(c.heads() + 2 * c.kvHeads) * d + (c.gating ? c.kvHeads : 0);
    add("transformer.wte.weight", {c.vocab, dm}, 0, 1);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        add(p + "ln_1.weight", {dm}, 1, 0.2f);
        add(p + "ln_2.weight", {dm}, 1, 0.2f);
        add(p + "attn.c_attn.weight", {width, dm}, 0, 1.5f / std::sqrt(float(dm)));
        add(p + "attn.c_proj.weight", {dm, c.heads() * d}, 0, 1 / std::sqrt(float(c.heads() * d)));
        add(p + "mlp.c_fc.weight", {c.mlp(), dm}, 0, 1 / std::sqrt(float(dm)));
        add(p + "mlp.c_proj.weight", {dm, c.mlp()}, 0, 1 / std::sqrt(float(c.mlp())));
        if (c.bias) {
            add(p + "ln_1.bias", {dm}, 0, 0.1f);
            add(p + "ln_2.bias", {dm}, 0, 0.1f);
            add(p + "attn.c_attn.bias", {width}, 0, 0.1f);
            add(p + "attn.c_proj.bias", {dm}, 0, 0.1f);
            add(p + "mlp.c_fc.bias", {c.mlp()}, 0, 0.1f);
            add(p + "mlp.c_proj.bias", {dm}, 0, 0.1f);
        }
        // Varied gate biases: some heads forget fast (logsigmoid(6.9 - 8) ~ -1.4).
        if (c.gating && c.bias) {
            auto& b = w[p + "attn.c_attn.bias"];
            for (int h = 0; h < c.kvHeads; ++h)
                b[width - c.kvHeads + h] = -8.0f + 3.0f * h;
        }
    }
    add("transformer.ln_f.weight", {dm}, 1, 0.2f);
    if (c.bias) add("transformer.ln_f.bias", {dm}, 0, 0.1f);
    w["lm_head.weight"] = w["transformer.wte.weight"];
    shapes["lm_head.weight"] = shapes["transformer.wte.weight"];
}

}  // namespace gatescope::test::power
