#include "engine/nn/weight_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/nn/model_error.h"

namespace gatescope::core {

WeightStore::WeightStore(std::shared_ptr<const Checkpoint> checkpoint)
    : m_checkpoint(std::move(checkpoint)) {}

std::string WeightStore::configFile() const {
    return (m_checkpoint->dir() / "config.json").string();
}

bool WeightStore::has(const std::string& name) const {
    return m_checkpoint->find(name) != nullptr;
}

void WeightStore::ignore(const std::string& name) {
    m_consumed.insert(name);
}

torch::Tensor WeightStore::takeOptional(const std::string& name,
                                        const std::vector<int64_t>& shape) {
    if (!has(name)) return {};
    return take(name, shape);
}

torch::Tensor WeightStore::take(const std::string& name, const std::vector<int64_t>& shape) {
    const TensorInfo* info = m_checkpoint->find(name);
    if (!info) {
        throwModelError(ErrorKind::Missing,
                        fmt::format("tensor is missing from the checkpoint (expected shape [{}])",
                                    fmt::join(shape, ", ")),
                        m_checkpoint->dir().string(), name);
    }
    if (info->shape != shape) {
        throwModelError(ErrorKind::Shape,
                        fmt::format("wrong shape: expected [{}], found [{}]",
                                    fmt::join(shape, ", "), fmt::join(info->shape, ", ")),
                        info->file.string(), name);
    }
    auto values = toFloat32(*info);
    if (!values) {
        Error e = values.error();
        if (e.file.empty()) e.file = info->file.string();
        if (e.object.empty()) e.object = name;
        throw ModelError(std::move(e));
    }
    m_consumed.insert(name);
    auto tensor = torch::empty(shape, torch::kFloat32);
    std::memcpy(tensor.data_ptr<float>(), values->data(), values->size() * sizeof(float));
    return tensor;
}

void WeightStore::expectAllConsumed() const {
    std::vector<std::string> extra;
    for (const auto& name : m_checkpoint->tensorNames()) {
        if (!m_consumed.count(name)) extra.push_back(name);
    }
    if (extra.empty()) return;
    const std::size_t shown = std::min<std::size_t>(extra.size(), 8);
    throwModelError(ErrorKind::Unsupported,
                    fmt::format("{} unexpected tensor(s) the model does not use: {}{} (is the "
                                "config right for these weights?)",
                                extra.size(), fmt::join(extra.begin(), extra.begin() + shown, ", "),
                                extra.size() > shown ? ", ..." : ""),
                    m_checkpoint->dir().string(), extra.front());
}

}  // namespace gatescope::core
