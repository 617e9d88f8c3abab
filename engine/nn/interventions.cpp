#include "engine/nn/interventions.h"

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/core.h>

#include "core/model/intervention_plan.h"
#include "engine/nn/model_error.h"

namespace gatescope::core {

namespace {

/// [G, 1, C] bool on `device`: the gate heads and channels `item` selects.
torch::Tensor selectionMask(const InterventionPlan& plan, const Intervention& item, int64_t g,
                            int64_t c, const torch::Device& device) {
    std::vector<uint8_t> mask(static_cast<std::size_t>(g * c), 0);
    for (int64_t head = 0; head < g; ++head) {
        if (!plan.selectsHead(item, static_cast<int>(head * plan.gateGroup))) continue;
        for (int64_t ch = 0; ch < c; ++ch)
            mask[head * c + ch] = plan.selectsChannel(item, static_cast<int>(ch)) ? 1 : 0;
    }
    return torch::tensor(mask, torch::kUInt8).to(torch::kBool).view({g, 1, c}).to(device);
}

torch::Tensor replacement(const InterventionPlan& plan, std::size_t index, int layer,
                          const torch::Tensor& gates) {
    const Intervention& item = plan.items[index];
    switch (item.kind) {
        case InterventionKind::GateOne:
            return torch::zeros_like(gates);
        case InterventionKind::GateConstant:
            return torch::full_like(gates, std::log(item.value));
        case InterventionKind::LogGateScale:
            return gates * item.value;
        case InterventionKind::GateClamp:
            // LO = 0 is no lower bound (log 0 = -inf).
            return item.low > 0 ? gates.clamp(std::log(item.low), std::log(item.high))
                                : gates.clamp_max(std::log(item.high));
        case InterventionKind::GatePatch: {
            const FloatArray& patch = plan.patches[index].at(layer);
            auto t = torch::from_blob(const_cast<float*>(patch.data.data()), patch.shape,
                                      torch::kFloat32);
            if (t.sizes() != gates.sizes())
                throwModelError(
                    ErrorKind::Internal,
                    fmt::format("patch gates for layer {} do not match the model's", layer), {},
                    "--intervene");
            return t.to(gates.device()).clone();
        }
        case InterventionKind::Ablate:
            break;
    }
    return gates;
}

}  // namespace

torch::Tensor intervenedLogGate(const RunOptions& options, int layer,
                                const torch::Tensor& logGate) {
    if (!options.interventions) return logGate;
    const InterventionPlan& plan = *options.interventions;
    const bool scalar = logGate.dim() == 2;
    auto gates = scalar ? logGate.unsqueeze(-1) : logGate;
    const int64_t g = gates.size(0), c = gates.size(2);
    if (g * plan.gateGroup != plan.heads || c != plan.gateChannels)
        throwModelError(
            ErrorKind::Internal,
            fmt::format("layer {}: gates [{}, {}, {}] do not match the model's {} "
                        "heads / {} per gate, {} channels",
                        layer, g, gates.size(1), c, plan.heads, plan.gateGroup, plan.gateChannels),
            {}, "--intervene");
    bool changed = false;
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
        const auto& item = plan.items[i];
        if (!item.isGate() || !plan.selectsLayer(item, layer)) continue;
        auto mask = selectionMask(plan, item, g, c, gates.device());
        gates = torch::where(mask, replacement(plan, i, layer, gates), gates);
        changed = true;
    }
    if (!changed) return logGate;
    return (scalar ? gates.squeeze(-1) : gates).contiguous();
}

torch::Tensor ablatedHeads(const RunOptions& options, int layer,
                           const torch::Tensor& projectionInput, int heads) {
    if (!options.interventions) return projectionInput;
    const InterventionPlan& plan = *options.interventions;
    std::vector<int64_t> ablated;
    for (int h = 0; h < heads; ++h) {
        for (const auto& item : plan.items) {
            if (item.kind == InterventionKind::Ablate && plan.selectsLayer(item, layer) &&
                plan.selectsHead(item, h)) {
                ablated.push_back(h);
                break;
            }
        }
    }
    if (ablated.empty()) return projectionInput;
    const int64_t n = projectionInput.size(0);
    auto out = projectionInput.clone(at::MemoryFormat::Contiguous).view({n, heads, -1});
    out.index_fill_(1, torch::tensor(ablated, torch::kInt64).to(out.device()), 0);
    return out.view({n, projectionInput.size(1)});
}

}  // namespace gatescope::core
