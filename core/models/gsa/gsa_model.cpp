#include "core/models/gsa/gsa_model.h"

#include "core/models/gsa/gsa_config.h"
#include "core/models/gsa/gsa_layer.h"
#include "core/models/gsa/gsa_weights.h"
#include "core/nn/device.h"
#include "core/nn/tensor_convert.h"

namespace gatescope::core::gsa {

namespace {

void moveWeights(GsaWeights& w, const DeviceMover& move) {
    moveFlaStack(w.stack, move);
    for (auto& l : w.layers) {
        for (auto* lin : {&l.q, &l.k, &l.v, &l.f, &l.o, &l.featureMap})
            move(*lin);
        for (auto* t : {&l.qConv.weight, &l.qConv.bias, &l.kConv.weight, &l.kConv.bias,
                        &l.vConv.weight, &l.vConv.bias, &l.gNorm})
            move(*t);
    }
}

class GsaModel final : public Model {
public:
    GsaModel(GsaConfig config, GsaWeights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.family = "gsa";
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.headDim = m_config.headKDim;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
        if (m_config.bosTokenId >= 0) m_info.bosId = m_config.bosTokenId;
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] {
            const auto device = computeDevice(options);
            const GsaWeights& weights = m_deviceWeights.get(m_weights, device, moveWeights);
            auto mixer = [&](int l, const torch::Tensor& normed, const Precision& precision,
                             int threads, LayerRecord* rec) {
                return gsaAttention(m_config, weights.layers[l], normed, precision, threads, rec);
            };
            // On CUDA everything but the slot recurrence runs on the GPU; that op (no GPU
            // kernel yet) runs on the CPU, which the path says.
            return weights.stack.run(
                ids, targets, options, probe, mixer,
                attentionPathOn(device, "cpu-chunked-gsa", "cuda+cpu-chunked-gsa (GSA op on CPU)"));
        });
    }

private:
    GsaConfig m_config;
    GsaWeights m_weights;
    DeviceWeightCache<GsaWeights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace

std::unique_ptr<Model> loadGsaModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseGsaConfig(checkpoint->config(), store.configFile());
    auto weights = loadGsaWeights(config, store);
    return std::make_unique<GsaModel>(std::move(config), std::move(weights),
                                      checkpoint->modelType());
}

}  // namespace gatescope::core::gsa
