// Test-only: what a float64 reference model lets a test change, and the interventions of
// core/model/intervention.h written as that change in float64 from docs/interventions.md (not
// from engine/nn/interventions.cpp): each reference calls RefHooks::logGate on every log gate it
// computes, before its cumulative sum, and RefHooks::ablated before its output projection.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "core/model/intervention.h"

namespace gatescope::test {

struct RefHooks {
    /// (layer, gate head, token, channel, log gate) -> the log gate the model uses.
    std::function<double(int, int, int64_t, int, double)> gate;
    /// (layer, query head) -> whether its slice of the output projection's input is zero.
    std::function<bool(int, int)> ablate;

    double logGate(int layer, int gateHead, int64_t t, int channel, double value) const {
        return gate ? gate(layer, gateHead, t, channel, value) : value;
    }
    bool ablated(int layer, int head) const { return ablate && ablate(layer, head); }
};

/// Patch gates for a reference: layer -> [gate head][token][channel].
using RefPatch = std::map<int, std::vector<std::vector<std::vector<double>>>>;

/// The hooks that apply `items` in order; `gateGroup` query heads share a gate head (gate head g
/// is selected when query head g * gateGroup is); `patches[i]` holds item i's patch gates.
inline RefHooks interventionHooks(std::vector<core::Intervention> items, int gateGroup,
                                  std::vector<RefPatch> patches = {}) {
    patches.resize(items.size());
    auto in = [](const std::vector<int>& list, int index) {
        return list.empty() || std::find(list.begin(), list.end(), index) != list.end();
    };
    RefHooks hooks;
    hooks.gate = [=](int layer, int gateHead, int64_t t, int channel, double l) {
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto& it = items[i];
            if (!it.isGate() || !in(it.layers, layer) || !in(it.heads, gateHead * gateGroup) ||
                !in(it.channels, channel))
                continue;
            using K = core::InterventionKind;
            switch (it.kind) {
                case K::GateOne:
                    l = 0.0;
                    break;
                case K::GateConstant:
                    l = std::log(it.value);
                    break;
                case K::LogGateScale:
                    l = it.value * l;
                    break;
                case K::GateClamp: {
                    // The gate itself clamped to [LO, HI]: exp(l) in [LO, HI].
                    l = std::log(std::clamp(std::exp(l), it.low, it.high));
                    break;
                }
                case K::GatePatch:
                    l = patches[i].at(layer).at(gateHead).at(t).at(channel);
                    break;
                case K::Ablate:
                    break;
            }
        }
        return l;
    };
    hooks.ablate = [=](int layer, int head) {
        for (const auto& it : items)
            if (it.kind == core::InterventionKind::Ablate && in(it.layers, layer) &&
                in(it.heads, head))
                return true;
        return false;
    };
    return hooks;
}

}  // namespace gatescope::test
