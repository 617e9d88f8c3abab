#include "core/analysis/effective_context.h"

#include <algorithm>
#include <map>
#include <utility>

namespace gatescope::core {

std::vector<HeadContext> effectiveContext(const TraceStats& trace) {
    std::vector<int> layerOrder;
    std::map<std::pair<int, int>, HeadContext> heads;
    auto entry = [&](int layer, int head) -> HeadContext& {
        if (std::find(layerOrder.begin(), layerOrder.end(), layer) == layerOrder.end())
            layerOrder.push_back(layer);
        auto& h = heads[{layer, head}];
        h.layer = layer;
        h.head = head;
        return h;
    };
    for (const auto& layer : trace.gates)
        for (std::size_t h = 0; h < layer.headHorizons.size(); ++h)
            entry(layer.layer, static_cast<int>(h)).gate = &layer.headHorizons[h];
    for (const auto& layer : trace.attention)
        for (const auto& h : layer.heads)
            entry(layer.layer, h.head).attention = &h.horizon;
    std::vector<HeadContext> out;
    for (int layer : layerOrder)
        for (const auto& [key, h] : heads)
            if (key.first == layer) out.push_back(h);
    return out;
}

}  // namespace gatescope::core
