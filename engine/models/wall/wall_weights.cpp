#include "engine/models/wall/wall_weights.h"

#include <fmt/format.h>

namespace gatescope::core::wall {

WallWeights loadWallWeights(const WallConfig& c, WeightStore& s) {
    WallWeights w;
    loadFlaEnds(s, c.vocabSize, c.hiddenSize, c.tieWordEmbeddings, w.stack);
    w.stack.normEps = c.normEps;
    const int64_t d = c.hiddenSize, hd = c.headDim;
    for (int i = 0; i < c.layers; ++i) {
        w.stack.blocks.push_back(loadFlaBlock(s, i, d, c.intermediateSize));
        const std::string p = fmt::format("model.layers.{}.attn.", i);
        WallLayerWeights l;
        l.q.weight = s.take(p + "q_proj.weight", {c.heads * hd, d});
        l.k.weight = s.take(p + "k_proj.weight", {c.kvHeads * hd, d});
        l.v.weight = s.take(p + "v_proj.weight", {c.kvHeads * hd, d});
        l.o.weight = s.take(p + "o_proj.weight", {d, c.heads * hd});
        if (c.gateDim > 0) {
            const int64_t gates = int64_t{c.gateHeads()} * c.gateDim;
            l.g.weight = s.take(p + "g_proj.weight", {gates, d});
            l.g.bias = s.take(p + "g_proj.bias", {gates});
        }
        if (c.scalarGate) {
            l.f.weight = s.take(p + "f_proj.weight", {c.heads, d});
            l.f.bias = s.take(p + "f_proj.bias", {c.heads});
        }
        if (c.sinkBias)
            l.sink = s.take(p + "sink_bias", {c.heads}).to(torch::kFloat32).contiguous();
        w.layers.push_back(std::move(l));
    }
    s.expectAllConsumed();
    return w;
}

}  // namespace gatescope::core::wall
