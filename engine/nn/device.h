// Private to core/: where a forward runs (RunOptions::device) and moving weights there.
#pragma once

#include <string>

#include "core/model/model.h"
#include "engine/nn/device_check.h"
#include "engine/nn/layers.h"
#include "engine/torch_pch.h"

namespace gatescope::core {

/// The torch device for options.device. Throws ModelError (Unsupported) when "cuda" cannot run
/// here (see checkDevice), or Usage for an unknown device name.
torch::Device computeDevice(const RunOptions& options);

/// `t` on `device` (undefined stays undefined; already there: returned as is).
torch::Tensor onDevice(const torch::Tensor& t, const torch::Device& device);

/// Moves every tensor of a weight structure in place: call with each member.
struct DeviceMover {
    torch::Device device;
    void operator()(torch::Tensor& t) const { t = onDevice(t, device); }
    void operator()(Linear& l) const { l = l.to(device); }
    /// Moves the token embeddings and the LM head; a head tied to the embeddings (sharing their
    /// tensor) stays tied to the moved copy.
    void embeddingsAndHead(torch::Tensor& embeddings, Linear& head) const;
};

/// A model's weights, copied to the GPU once (on the first CUDA forward) and kept.
template <class Weights>
class DeviceWeightCache {
public:
    /// `move(weights, mover)` moves a copy's members; it is called once per device.
    template <class MoveFn>
    const Weights& get(const Weights& host, const torch::Device& device, MoveFn&& move) {
        if (device.is_cpu()) return host;
        if (!m_weights || m_device != device) {
            m_weights = std::make_unique<Weights>(host);
            move(*m_weights, DeviceMover{device});
            m_device = device;
        }
        return *m_weights;
    }

private:
    std::unique_ptr<Weights> m_weights;
    torch::Device m_device{torch::kCPU};
};

/// "cuda: <name>" suffix for attentionPath strings and messages.
std::string attentionPathOn(const torch::Device& device, const std::string& cpuPath,
                            const std::string& cudaPath);

}  // namespace gatescope::core
