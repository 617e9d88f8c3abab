#include "core/models/wall/wall_model.h"

#include "core/models/wall/wall_config.h"
#include "core/models/wall/wall_layer.h"
#include "core/models/wall/wall_weights.h"
#include "core/nn/device.h"
#include "core/nn/tensor_convert.h"

namespace gatescope::core::wall {

namespace {

void moveWeights(WallWeights& w, const DeviceMover& move) {
    moveFlaStack(w.stack, move);
    for (auto& l : w.layers) {
        for (auto* lin : {&l.q, &l.k, &l.v, &l.g, &l.o})
            move(*lin);
    }
}

class WallModel final : public Model {
public:
    WallModel(WallConfig config, WallWeights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.family = "wall";
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.headDim = m_config.headDim;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
        if (m_config.bosTokenId >= 0) m_info.bosId = m_config.bosTokenId;
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] {
            const auto device = computeDevice(options);
            const WallWeights& weights = m_deviceWeights.get(m_weights, device, moveWeights);
            auto mixer = [&](int l, const torch::Tensor& normed, const Precision& precision,
                             int threads, LayerRecord* rec) {
                return wallAttention(m_config, weights.layers[l], normed, precision, threads, rec);
            };
            // On CUDA the anchored attention op (no GPU kernel yet) runs on the CPU.
            return weights.stack.run(ids, targets, options, probe, mixer,
                                     attentionPathOn(device, "cpu-blockwise-wall",
                                                     "cuda+cpu-blockwise-wall (Wall op on CPU)"));
        });
    }

private:
    WallConfig m_config;
    WallWeights m_weights;
    DeviceWeightCache<WallWeights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace

std::unique_ptr<Model> loadWallModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseWallConfig(checkpoint->config(), store.configFile());
    auto weights = loadWallWeights(config, store);
    return std::make_unique<WallModel>(std::move(config), std::move(weights),
                                       checkpoint->modelType());
}

}  // namespace gatescope::core::wall
