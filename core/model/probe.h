// The instrumentation sink a forward pass reports to, layer by layer.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/maps/score_kind.h"
#include "core/model/float_array.h"

namespace gatescope::core {

/// How one layer's token-to-token weights are formed; what a trace needs to recompute any tile.
struct LayerAttention {
    ScoreKind scoreKind = ScoreKind::AdditiveDecay;
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

/// One array of a layer left on the GPU (see Probe::takesDeviceArrays): device pointer,
/// contiguous row-major, float32 or bfloat16 (bf16 arrays hold exactly the values of the float32
/// array the host path would record; widening them to float32 is exact).
struct DeviceArray {
    std::vector<int64_t> shape;
    const void* data = nullptr;
    bool bf16 = false;

    int64_t numel() const {
        int64_t count = 1;
        for (int64_t d : shape)
            count *= d;
        return count;
    }
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
    /// Only when the probe takes device arrays: what LayerRecord::factors would hold, by the same
    /// names, plus "log_retention" for LayerRecord::logRetention; those host fields stay empty.
    std::map<std::string, DeviceArray> arrays;
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
    /// Factors not wanted (by LayerRecord::factors name) are not copied to the host. Models may
    /// still record them; a probe must not rely on their absence.
    virtual bool wantsFactor(std::string_view name) const { return true; }
    /// True: layers that run on CUDA may leave their factors and gates on the GPU
    /// (DeviceFactors::arrays) instead of copying them to LayerRecord::factors / logRetention;
    /// the probe copies what it needs. Layers without device support still fill the host fields.
    virtual bool takesDeviceArrays() const { return false; }
    virtual void onLayer(LayerRecord&& record) = 0;
};

}  // namespace gatescope::core
