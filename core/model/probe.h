// The instrumentation sink a forward pass reports to, layer by layer.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/float_array.h"

namespace gatescope::core {

/// How one layer's token-to-token weights are formed; what a trace needs to recompute any tile.
struct LayerAttention {
    /// "additive_decay" (Transformer, FoX, GatedFWA), "wall", "power", "gsa".
    std::string scoreKind;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    int valueDim = 0;
    int channels = 1;       ///< gate channels per head (1 for scalar gates)
    double scale = 1.0;     ///< multiplies q.k
    int64_t window = 0;     ///< 0: full causal
    bool hasDecay = false;  ///< false for the plain Transformer
    nlohmann::json extras = nlohmann::json::object();  ///< architecture scalars (p, softcap, ...)
};

/// The additive-decay factors of a layer while they are still on the GPU (forward on CUDA), so
/// that pyramids can be built there without a round trip. Device pointers, float32, contiguous:
/// q [heads, n, dk], k [kvHeads, n, dk] (query head h reads kv head h / (heads / kvHeads)),
/// lse and logDecayCumsum [heads, n] (logDecayCumsum null without decay). `owner` keeps the
/// memory alive; the pointers are valid on the current CUDA device's legacy default stream.
struct DeviceFactors {
    int64_t n = 0;
    int heads = 0;
    int kvHeads = 0;
    int dk = 0;
    const float* q = nullptr;
    const float* k = nullptr;
    const float* lse = nullptr;
    const float* logDecayCumsum = nullptr;
    std::shared_ptr<const void> owner;
};

/// Everything one layer reports. Arrays are [H, N, ...] per head, float32.
struct LayerRecord {
    int layer = 0;
    LayerAttention attention;
    /// log retention per token and channel, [H, N, C]; empty when the layer has no gates.
    FloatArray logRetention;
    /// Named factors: "q", "k", "v" [H, N, D] as they enter attention, "lse" [H, N] (natural-log
    /// row normalizer), "log_decay_cumsum" [H, N], and architecture extras.
    std::map<std::string, FloatArray> factors;
    /// Residual stream entering the layer, [N, d_model]; only when RunOptions::recordHidden.
    FloatArray hiddenIn;
    /// Set by additive-decay layers that ran on CUDA: the same factors as `factors`, on the GPU.
    std::shared_ptr<const DeviceFactors> deviceFactors;
};

/// Receives layer records during Model::forward, on the thread running the forward, in layer
/// order. Implementations may move data out of the record.
class Probe {
public:
    virtual ~Probe() = default;
    /// Layers not wanted are not copied out of the model.
    virtual bool wantsLayer(int layer) const { return true; }
    virtual void onLayer(LayerRecord&& record) = 0;
};

}  // namespace gatescope::core
