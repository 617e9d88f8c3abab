// Private to engine/models: applies RunOptions::interventions (core/model/intervention_plan.h)
// inside a forward. Each architecture hands its log gates over where it computes them, before
// their cumulative sum, and its output projection's input before the projection; both return the
// tensor unchanged (the same object) when nothing applies to the layer. Semantics per
// architecture: docs/interventions.md.
#pragma once

#include "core/model/model.h"
#include "engine/torch_pch.h"

namespace gatescope::core {

/// `logGate`: the layer's natural-log gates (<= 0), float32, gate heads first: [G, N] for
/// scalar gates, [G, N, C] for per-channel gates, G = heads / ModelInfo::gateGroup. Returns them
/// with every gate intervention selecting `layer` applied in the plan's order; channels and
/// heads outside an intervention's selection keep their values exactly. Throws ModelError
/// (Internal) when the shape disagrees with the plan (a model whose ModelInfo gate fields are
/// wrong).
torch::Tensor intervenedLogGate(const RunOptions& options, int layer, const torch::Tensor& logGate);

/// `projectionInput`: [N, H * dv], what the layer's output projection reads, head h in columns
/// [h dv, (h + 1) dv). Returns a copy with the columns of every head an ablation selects in
/// `layer` set to 0, or the same tensor when none does.
torch::Tensor ablatedHeads(const RunOptions& options, int layer,
                           const torch::Tensor& projectionInput, int heads);

}  // namespace gatescope::core
