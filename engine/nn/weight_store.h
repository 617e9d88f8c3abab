// Private to core/models: pulls named tensors out of a Checkpoint as float32 LibTorch tensors,
// checking shapes, and reports tensors the model never asked for.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint.h"
#include "engine/torch_pch.h"

namespace gatescope::core {

class WeightStore {
public:
    explicit WeightStore(std::shared_ptr<const Checkpoint> checkpoint);

    /// The tensor `name` with exactly `shape`, converted to float32 (owned copy). Throws
    /// ModelError (Missing / Shape / Unsupported dtype) naming the file and the tensor.
    torch::Tensor take(const std::string& name, const std::vector<int64_t>& shape);
    /// Like take() but returns an undefined tensor when absent.
    torch::Tensor takeOptional(const std::string& name, const std::vector<int64_t>& shape);
    bool has(const std::string& name) const;
    /// Marks tensors as known but unused (buffers such as rotary inv_freq).
    void ignore(const std::string& name);
    /// Throws ModelError listing tensors in the checkpoint that no take() consumed.
    void expectAllConsumed() const;

    const Checkpoint& checkpoint() const { return *m_checkpoint; }
    std::string configFile() const;

private:
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::set<std::string> m_consumed;
};

}  // namespace gatescope::core
