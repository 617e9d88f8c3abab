// The instrumentation sink a forward pass reports to, layer by layer.
#pragma once

#include <map>
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
