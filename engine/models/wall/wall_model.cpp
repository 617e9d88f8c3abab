#include "engine/models/wall/wall_model.h"

#include "engine/models/wall/wall_config.h"
#include "engine/models/wall/wall_layer.h"
#include "engine/models/wall/wall_weights.h"
#include "engine/nn/fla_decoder.h"

namespace gatescope::core::wall {

namespace {

class WallDecoder final : public FlaDecoder<WallConfig, WallWeights> {
public:
    using FlaDecoder::FlaDecoder;

    static void describe(const WallConfig& c, ModelInfo& info) {
        info.family = "wall";
        info.headDim = c.headDim;
        info.packedDocuments = true;
        info.gateChannels = c.gateDim > 0 ? c.gateDim : (c.scalarGate ? 1 : 0);
        info.gateGroup = c.gateDim > 0 && c.tieGates ? c.group() : 1;
    }

    static void move(WallWeights& w, const DeviceMover& move) {
        moveFlaStack(w.stack, move);
        for (auto& l : w.layers) {
            for (auto* lin : {&l.q, &l.k, &l.v, &l.g, &l.o, &l.f})
                move(*lin);  // l.sink stays on the host: the Wall op reads its values there
        }
    }

    torch::Tensor block(int layer, const torch::Tensor& x, LayerRecord* record) const {
        const Pass& p = pass();
        return mixedBlock(layer, x, [&](const torch::Tensor& normed) {
            return wallAttention(p.config, p.weights.layers[layer], normed, p.precision,
                                 p.options.threads, p.options.documentStarts, record, &p.options,
                                 layer);
        });
    }

    std::string attentionPath() const {
        const auto& c = pass().config;
        const std::string cpuPath = "cpu-blockwise-wall";
        // The CUDA forward (kernels/cuda/wall_power_cuda.h) has no window, sink, scalar gate or
        // packed documents: such layers run the CPU kernel, and the path says so.
#ifdef GATESCOPE_HAS_CUDA
        const bool cpuOnly = c.window > 0 || c.sinkBias || c.scalarGate;
        const char* cudaPath =
            pass().options.documentStarts.size() > 1
                ? "cuda+cpu-blockwise-wall (Wall op on CPU: packed documents)"
            : c.headDim > 256 ? "cuda+cpu-blockwise-wall (Wall op on CPU: head dim > 256)"
            : cpuOnly ? "cuda+cpu-blockwise-wall (Wall op on CPU: window, sink or scalar gate)"
                      : "cuda-tiled-wall";
#else
        (void)c;
        const char* cudaPath =
            "cuda+cpu-blockwise-wall (Wall op on CPU: no CUDA kernels in this build)";
#endif
        return attentionPathOn(pass().session.device(), cpuPath, cudaPath);
    }
};

}  // namespace

std::unique_ptr<Model> loadWallModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseWallConfig(checkpoint->config(), store.configFile());
    auto weights = loadWallWeights(config, store);
    return std::make_unique<DecoderModel<WallDecoder>>(std::move(config), std::move(weights),
                                                       checkpoint->modelType());
}

}  // namespace gatescope::core::wall
