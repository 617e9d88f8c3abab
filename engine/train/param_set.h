// Private to core/train: the named parameters of a TrainNet, in checkpoint order, with the
// official initialisations, and saving them as a checkpoint the model zoo opens.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"
#include "engine/torch_pch.h"

namespace gatescope::core::train {

class ParamSet {
public:
    explicit ParamSet(uint64_t seed = 1);

    /// Adds a float32 parameter ~ N(0, stddev^2) (requires_grad) and returns it.
    torch::Tensor normal(const std::string& name, std::vector<int64_t> shape, double stddev);
    /// Adds a parameter filled with `value`.
    torch::Tensor constant(const std::string& name, std::vector<int64_t> shape, double value);
    /// Adds a parameter from `values` (copied, requires_grad set).
    torch::Tensor add(const std::string& name, const torch::Tensor& values);
    bool has(const std::string& name) const;
    /// The parameter named `name`; throws ModelError when absent.
    const torch::Tensor& get(const std::string& name) const;

    const std::vector<std::string>& names() const { return m_names; }
    const std::vector<torch::Tensor>& tensors() const { return m_tensors; }
    int64_t count() const;  ///< number of scalars
    /// The seeded generator behind the initialisations (for nets' own random init).
    at::Generator& generator() { return m_generator; }

    /// Moves every parameter to `device` in place (keeps requires_grad).
    void to(const torch::Device& device);

    /// Writes dir/model.safetensors (float32, names as added) and dir/config.json, each atomically
    /// (a temporary renamed into place). Errors: Io naming the file.
    Status save(const std::filesystem::path& dir, const nlohmann::json& config,
                const std::map<std::string, std::string>& metadata = {}) const;
    /// Copies the values of dir/model.safetensors (same names and shapes) into the parameters:
    /// resuming a run. Errors name the file and the tensor.
    Status load(const std::filesystem::path& dir);

private:
    at::Generator m_generator;
    std::vector<std::string> m_names;
    std::vector<torch::Tensor> m_tensors;
};

}  // namespace gatescope::core::train
