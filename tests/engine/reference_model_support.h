// Test support shared by the float64 reference models (GSA, Wall): named random tensors, writing
// them as a checkpoint (config.json + model.safetensors), and the float64 building blocks of
// fla-style blocks. Independent of core/models; small sizes only.
#pragma once

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "core/checkpoint/safetensors_writer.h"
#include "core/model/model.h"
#include "engine/models/registry.h"

namespace gatescope::test {

struct NamedTensor {
    std::vector<int64_t> shape;
    std::vector<float> values;
};
using TensorMap = std::map<std::string, NamedTensor>;

/// Adds tensors of N(mean, stddev^2) values under a name, from one seeded generator.
class RandomTensors {
public:
    RandomTensors(TensorMap& out, unsigned seed) : m_out(out), m_rng(seed) {}
    void add(const std::string& name, std::vector<int64_t> shape, double stddev,
             double mean = 0.0) {
        std::normal_distribution<float> dist(static_cast<float>(mean), static_cast<float>(stddev));
        NamedTensor t{shape, {}};
        int64_t numel = 1;
        for (auto s : shape)
            numel *= s;
        for (int64_t i = 0; i < numel; ++i)
            t.values.push_back(dist(m_rng));
        m_out[name] = std::move(t);
    }

private:
    TensorMap& m_out;
    std::mt19937 m_rng;
};

/// Writes `config` as config.json and `weights` (float32) as model.safetensors into `dir`.
inline void writeCheckpoint(const std::filesystem::path& dir, const nlohmann::json& config,
                            const TensorMap& weights) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "config.json") << config.dump(2);
    std::vector<core::TensorToWrite> tensors;
    for (const auto& [name, t] : weights) {
        tensors.push_back(
            {name, core::DType::F32, t.shape, std::as_bytes(std::span<const float>(t.values))});
    }
    auto status = core::writeSafetensors(dir / "model.safetensors", tensors);
    if (!status) throw std::runtime_error(status.error().describe());
}

/// An empty folder under the system temp dir, unique per process:
/// `gatescope_<prefix>_<name>_<pid>`.
inline std::filesystem::path scratchDir(const std::string& prefix, const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               fmt::format("gatescope_{}_{}_{}", prefix, name, ::getpid());
    std::filesystem::remove_all(dir);
    return dir;
}

/// n ids uniform in [0, vocab).
inline std::vector<int32_t> randomIds(int64_t n, int vocab, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int32_t> dist(0, vocab - 1);
    std::vector<int32_t> ids(n);
    for (auto& id : ids)
        id = dist(rng);
    return ids;
}

/// Opens the checkpoint folder and loads its model.
inline Result<std::unique_ptr<core::Model>> loadModelFrom(const std::filesystem::path& dir) {
    auto checkpoint = core::Checkpoint::open(dir);
    if (!checkpoint) return checkpoint.error();
    return core::loadModel(*checkpoint);
}

namespace ref {
using Mat = std::vector<std::vector<double>>;  // [rows][cols]

inline Mat linear(const Mat& x, const NamedTensor& w, const NamedTensor* bias = nullptr) {
    const int64_t out = w.shape[0], in = w.shape[1];
    Mat y(x.size(), std::vector<double>(out, 0.0));
    for (std::size_t t = 0; t < x.size(); ++t)
        for (int64_t o = 0; o < out; ++o) {
            for (int64_t i = 0; i < in; ++i)
                y[t][o] += double(w.values[o * in + i]) * x[t][i];
            if (bias) y[t][o] += bias->values[o];
        }
    return y;
}
inline double silu(double x) {
    return x / (1.0 + std::exp(-x));
}
inline Mat rms(const Mat& x, const NamedTensor* w, double eps) {
    Mat y = x;
    for (auto& row : y) {
        double ms = 0.0;
        for (double e : row)
            ms += e * e;
        const double inv = 1.0 / std::sqrt(ms / row.size() + eps);
        for (std::size_t i = 0; i < row.size(); ++i)
            row[i] *= inv * (w ? w->values[i] : 1.0);
    }
    return y;
}
/// x += down(silu(gate(m)) * up(m)) with m = rms(x, mlp_norm): the fla SwiGLU half-block.
inline void addSwiGlu(Mat& x, const TensorMap& w, const std::string& prefix, double eps) {
    auto m = rms(x, &w.at(prefix + "mlp_norm.weight"), eps);
    auto gate = linear(m, w.at(prefix + "mlp.gate_proj.weight"));
    auto up = linear(m, w.at(prefix + "mlp.up_proj.weight"));
    for (std::size_t t = 0; t < gate.size(); ++t)
        for (std::size_t i = 0; i < gate[t].size(); ++i)
            gate[t][i] = silu(gate[t][i]) * up[t][i];
    auto down = linear(gate, w.at(prefix + "mlp.down_proj.weight"));
    for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t i = 0; i < x[t].size(); ++i)
            x[t][i] += down[t][i];
}
}  // namespace ref

}  // namespace gatescope::test
