#include "core/model/intervention_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "data/trace/trace_reader.h"

namespace gatescope::core {

namespace {

Error usage(const Intervention& item, const std::string& why, std::string file = {}) {
    return Error{ErrorKind::Usage, fmt::format("'{}': {}", item.text, why), std::move(file),
                 std::string(kInterventionOption)};
}

Status checkRange(const Intervention& item, const std::vector<int>& indices, int count,
                  const char* what, const char* extra = "") {
    for (int index : indices) {
        if (index >= count) {
            return usage(item, fmt::format("{} {} is outside the model's {} {}s (0-{}){}", what,
                                           index, count, what, count - 1, extra));
        }
    }
    return Ok{};
}

/// With shared gates a head selection must take whole groups: the gate cannot differ inside one.
Status checkWholeGroups(const Intervention& item, int heads, int group) {
    if (group <= 1 || item.heads.empty()) return Ok{};
    for (int h : item.heads) {
        const int first = h / group * group;
        for (int other = first; other < first + group && other < heads; ++other) {
            if (!std::binary_search(item.heads.begin(), item.heads.end(), other)) {
                return usage(item, fmt::format("query heads {}-{} share one gate (gate head {}); "
                                               "select all of them or none",
                                               first, first + group - 1, h / group));
            }
        }
    }
    return Ok{};
}

/// The patch trace's gates for every layer `item` selects, reduced to gate heads.
Result<std::map<int, FloatArray>> readPatch(const Intervention& item, const InterventionPlan& plan,
                                            std::span<const int32_t> ids) {
    const std::string file = item.patchTrace.string();
    auto reader = data::TraceReader::open(item.patchTrace);
    if (!reader) {
        Error e = reader.error();
        e.message = fmt::format("'{}': {}", item.text, e.message);
        if (e.object.empty()) e.object = std::string(kInterventionOption);
        return e;
    }
    auto tokens = (*reader)->tokens();
    if (!tokens) return tokens.error();
    const auto n = static_cast<int64_t>(ids.size());
    if (static_cast<int64_t>(tokens->ids.size()) != n)
        return usage(item,
                     fmt::format("the patch trace holds {} tokens, this input {}: patching needs "
                                 "the same tokens",
                                 tokens->ids.size(), n),
                     file);
    const auto diff = std::mismatch(ids.begin(), ids.end(), tokens->ids.begin());
    if (diff.first != ids.end())
        return usage(item,
                     fmt::format("the patch trace's token {} is id {}, this input's is {}: "
                                 "patching needs the same tokens",
                                 diff.first - ids.begin(), *diff.second, *diff.first),
                     file);
    std::map<int, FloatArray> out;
    for (int layer = 0; layer < plan.layers; ++layer) {
        if (!plan.selectsLayer(item, layer)) continue;
        const auto* info = (*reader)->summary().layer(layer);
        if (!info || !info->hasGates)
            return usage(item, fmt::format("the patch trace has no gates for layer {}", layer),
                         file);
        auto gates = (*reader)->gates(layer);
        if (!gates) return gates.error();
        const auto& s = gates->shape;
        if (s.size() != 3 || s[0] != plan.heads || s[1] != n || s[2] != plan.gateChannels)
            return usage(item,
                         fmt::format("the patch trace's layer {} gates are [{}], this model's "
                                     "[{}, {}, {}] (heads, tokens, channels)",
                                     layer, fmt::join(s, ", "), plan.heads, n, plan.gateChannels),
                         file);
        const int gateHeads = plan.heads / plan.gateGroup;
        const int64_t row = n * plan.gateChannels;
        FloatArray a;
        a.shape = {gateHeads, n, plan.gateChannels};
        a.data.resize(static_cast<std::size_t>(gateHeads * row));
        for (int g = 0; g < gateHeads; ++g) {
            const auto* src = gates->values.data() + int64_t(g) * plan.gateGroup * row;
            std::copy(src, src + row, a.data.begin() + g * row);
        }
        out.emplace(layer, std::move(a));
    }
    return out;
}

bool selects(const std::vector<int>& list, int index) {
    return list.empty() || std::binary_search(list.begin(), list.end(), index);
}

}  // namespace

bool InterventionPlan::selectsLayer(const Intervention& item, int layer) const {
    return selects(item.layers, layer);
}
bool InterventionPlan::selectsHead(const Intervention& item, int head) const {
    return selects(item.heads, head);
}
bool InterventionPlan::selectsChannel(const Intervention& item, int channel) const {
    return selects(item.channels, channel);
}

Result<std::shared_ptr<const InterventionPlan>> planInterventions(
    const std::vector<Intervention>& items, const ModelInfo& info, std::span<const int32_t> ids) {
    if (items.empty()) return std::shared_ptr<const InterventionPlan>();
    auto plan = std::make_shared<InterventionPlan>();
    plan->layers = info.layers;
    plan->heads = info.heads;
    plan->gateGroup = std::max(1, info.gateGroup);
    plan->gateChannels = info.gateChannels;
    for (const auto& item : items) {
        if (auto st = checkRange(item, item.layers, info.layers, "layer"); !st) return st.error();
        if (auto st = checkRange(item, item.heads, info.heads, "head"); !st) return st.error();
        if (item.isGate()) {
            if (info.gateChannels == 0) {
                return usage(item, fmt::format("model_type '{}' ({}) has no forget gate: only "
                                               "ablate applies to it",
                                               info.modelType, info.family));
            }
            const char* scalar = info.gateChannels == 1 ? ": its gate is one scalar per head" : "";
            if (auto st =
                    checkRange(item, item.channels, info.gateChannels, "gate channel", scalar);
                !st)
                return st.error();
            if (auto st = checkWholeGroups(item, info.heads, plan->gateGroup); !st)
                return st.error();
        }
        plan->items.push_back(item);
        plan->patches.emplace_back();
        if (item.kind == InterventionKind::GatePatch) {
            auto patch = readPatch(item, *plan, ids);
            if (!patch) return patch.error();
            plan->patches.back() = std::move(*patch);
        }
    }
    return std::shared_ptr<const InterventionPlan>(std::move(plan));
}

}  // namespace gatescope::core
