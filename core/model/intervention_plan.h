// Interventions resolved against one loaded model and one input: selections checked against the
// model's layers, heads and gate layout, and the gates of patch traces read. What a forward
// carries (RunOptions::interventions) and engine/nn/interventions.h applies. No LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/model/float_array.h"
#include "core/model/intervention.h"
#include "core/model/model.h"

namespace gatescope::core {

/// Immutable once built; shared read-only by the forward (any thread).
struct InterventionPlan {
    std::vector<Intervention> items;  ///< in the order given; applied in that order per layer
    /// Parallel to items: for a GatePatch, layer -> the patch trace's log gates per gate head,
    /// [gate heads, N, gate channels] (gate head g reads the trace's query head g * gateGroup).
    std::vector<std::map<int, FloatArray>> patches;
    int layers = 0, heads = 0;
    int gateGroup = 1;     ///< ModelInfo::gateGroup
    int gateChannels = 0;  ///< ModelInfo::gateChannels

    /// Whether `item` applies to `layer` / query head `head` / gate channel `channel`.
    bool selectsLayer(const Intervention& item, int layer) const;
    bool selectsHead(const Intervention& item, int head) const;
    bool selectsChannel(const Intervention& item, int channel) const;
};

/// Checks `items` against `info` and reads patch traces. `ids` are the tokens the forward will
/// run (a patch trace must hold exactly these). Errors (object "--intervene", the message quoting
/// the intervention): Usage for a layer, head or channel outside the model's range (naming the
/// range), a gate intervention on a model without gates (the RoPE Transformer: only ablate
/// applies), a selection that splits a group of query heads sharing one gate, a patch trace
/// with other tokens, another head or channel count, or without gates for a selected layer;
/// the reader's errors (naming the patch file) when it cannot be read. Empty `items`: null plan.
Result<std::shared_ptr<const InterventionPlan>> planInterventions(
    const std::vector<Intervention>& items, const ModelInfo& info, std::span<const int32_t> ids);

}  // namespace gatescope::core
