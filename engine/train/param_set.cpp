#include "engine/train/param_set.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_writer.h"
#include "data/common/atomic_file.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::train {

ParamSet::ParamSet(uint64_t seed) : m_generator(at::detail::createCPUGenerator(seed)) {}

torch::Tensor ParamSet::normal(const std::string& name, std::vector<int64_t> shape, double stddev) {
    auto values = torch::randn(shape, m_generator, torch::kFloat32) * stddev;
    return add(name, values);
}

torch::Tensor ParamSet::constant(const std::string& name, std::vector<int64_t> shape,
                                 double value) {
    return add(name, torch::full(shape, value, torch::kFloat32));
}

torch::Tensor ParamSet::add(const std::string& name, const torch::Tensor& values) {
    for (const auto& existing : m_names) {
        if (existing == name)
            throwModelError(ErrorKind::Internal, "parameter added twice", {}, name);
    }
    auto tensor = values.to(torch::kFloat32).clone().contiguous().set_requires_grad(true);
    m_names.push_back(name);
    m_tensors.push_back(tensor);
    return tensor;
}

bool ParamSet::has(const std::string& name) const {
    return std::find(m_names.begin(), m_names.end(), name) != m_names.end();
}

const torch::Tensor& ParamSet::get(const std::string& name) const {
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        if (m_names[i] == name) return m_tensors[i];
    }
    throwModelError(ErrorKind::Internal, "no such parameter", {}, name);
}

int64_t ParamSet::count() const {
    int64_t total = 0;
    for (const auto& t : m_tensors)
        total += t.numel();
    return total;
}

void ParamSet::to(const torch::Device& device) {
    torch::NoGradGuard noGrad;
    for (auto& t : m_tensors)
        t = t.to(device).detach().set_requires_grad(true);
}

Status ParamSet::save(const std::filesystem::path& dir, const nlohmann::json& config,
                      const std::map<std::string, std::string>& metadata) const {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{ErrorKind::Io, "cannot create folder: " + ec.message(), dir.string(), {}};
    std::vector<torch::Tensor> host;
    std::vector<TensorToWrite> tensors;
    host.reserve(m_tensors.size());
    for (std::size_t i = 0; i < m_tensors.size(); ++i) {
        host.push_back(m_tensors[i].detach().to(torch::kCPU, torch::kFloat32).contiguous());
        const auto& t = host.back();
        tensors.push_back({m_names[i], DType::F32, t.sizes().vec(),
                           std::as_bytes(std::span<const float>(
                               t.data_ptr<float>(), static_cast<std::size_t>(t.numel())))});
    }
    auto meta = metadata;
    meta.emplace("format", "pt");
    if (auto st = writeSafetensors(dir / "model.safetensors", tensors, meta); !st) return st;
    return data::writeFileAtomically(dir / "config.json", config.dump(2) + "\n");
}

Status ParamSet::load(const std::filesystem::path& dir) {
    const auto path = dir / "model.safetensors";
    auto file = SafetensorsFile::open(path);
    if (!file) return file.error();
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        const auto* info = (*file)->find(m_names[i]);
        if (!info) return Error{ErrorKind::Missing, "tensor missing", path.string(), m_names[i]};
        auto values = toFloat32(*info);
        if (!values) return values.error();
        if (static_cast<int64_t>(values->size()) != m_tensors[i].numel()) {
            return Error{
                ErrorKind::Shape,
                fmt::format("{} values, the net has {}", values->size(), m_tensors[i].numel()),
                path.string(), m_names[i]};
        }
        auto cpu = torch::from_blob(values->data(), m_tensors[i].sizes(), torch::kFloat32);
        m_tensors[i].copy_(cpu);
    }
    return Ok{};
}

}  // namespace gatescope::core::train
