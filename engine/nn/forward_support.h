// Private to core/models: the bookkeeping every forward shares: input validation, default targets,
// thread count, no-grad mode, cancellation (between layers, and inside the kernels through a
// kernels::CancelScope on the forward's thread) and progress between layers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/model/model.h"
#include "engine/torch_pch.h"
#include "kernels/cpu/cancel.h"

namespace gatescope::core {

class ForwardSession {
public:
    /// Throws ModelError for an empty input, ids outside [0, vocabSize), targets of the wrong
    /// length, or a device that cannot run here. `options` must outlive the session.
    ForwardSession(std::span<const int32_t> ids, std::span<const int32_t> targets,
                   int64_t vocabSize, const RunOptions& options, int layers = 0);

    int64_t n() const { return static_cast<int64_t>(m_ids.size()); }
    /// int64 [N] tensor of the ids, on device().
    const torch::Tensor& idTensor() const { return m_idTensor; }
    /// Where the forward runs (RunOptions::device; throws in the constructor when unusable).
    const torch::Device& device() const { return m_device; }
    /// targets[i] = ids[i + 1] unless given; -1 at the last position.
    std::span<const int32_t> targets() const { return m_targets; }
    /// Throws ModelError(Cancelled) when the caller asked to stop; reports progress.
    void beginLayer(int layer);
    void progress(double fraction, std::string_view stage) const;

private:
    std::span<const int32_t> m_ids;
    std::vector<int32_t> m_targets;
    torch::Device m_device{torch::kCPU};
    torch::Tensor m_idTensor;
    const RunOptions& m_options;
    int m_layers;
    torch::NoGradGuard m_noGrad;
    /// RunOptions::cancelled reaches the CPU kernels (per query block) and the chunk loops.
    kernels::CancelScope m_cancelScope{m_options.cancelled};
};

}  // namespace gatescope::core
