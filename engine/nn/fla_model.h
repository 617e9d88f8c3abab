// Private to core/models: the Model of an fla-style architecture (GSA, Wall): a FlaStack around
// per-layer token mixers. An architecture supplies its config and weights types and an FlaArch
// (how to run one layer's mixer, how to move its weights to a device, what to call the paths).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "core/model/model.h"
#include "engine/nn/device.h"
#include "engine/nn/fla_stack.h"
#include "engine/nn/tensor_convert.h"

namespace gatescope::core {

/// Config needs: layers, heads, kvHeads, hiddenSize, vocabSize, bosTokenId. Weights needs:
/// `FlaStack stack` and `layers` (one entry per layer).
template <class Config, class Weights>
struct FlaArch {
    const char* family = "";
    int headDim = 0;  ///< reported in ModelInfo
    torch::Tensor (*mix)(const Config&, const typename decltype(Weights::layers)::value_type&,
                         const torch::Tensor& normed, const Precision&, int threads,
                         LayerRecord* record) = nullptr;
    /// Set instead of `mix` by mixers that run packed documents (RunOptions::documentStarts,
    /// passed on as given, empty for one document); ModelInfo::packedDocuments follows it.
    torch::Tensor (*mixDocuments)(const Config&,
                                  const typename decltype(Weights::layers)::value_type&,
                                  const torch::Tensor& normed, const Precision&, int threads,
                                  std::span<const int64_t> documentStarts,
                                  LayerRecord* record) = nullptr;
    void (*move)(Weights&, const DeviceMover&) = nullptr;
    const char* cpuPath = "";   ///< attentionPath on the CPU
    const char* cudaPath = "";  ///< on CUDA (say which ops still run on the CPU)
    /// On CUDA with more than one packed document, when that takes another path (null: cudaPath).
    const char* cudaPathDocuments = nullptr;
};

template <class Config, class Weights>
class FlaModel final : public Model {
public:
    FlaModel(Config config, Weights weights, std::string modelType, FlaArch<Config, Weights> arch)
        : m_config(std::move(config)), m_weights(std::move(weights)), m_arch(arch) {
        m_info.modelType = std::move(modelType);
        m_info.family = arch.family;
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.headDim = arch.headDim;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
        if (m_config.bosTokenId >= 0) m_info.bosId = m_config.bosTokenId;
        m_info.packedDocuments = arch.mixDocuments != nullptr;
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] {
            const auto device = computeDevice(options);
            const Weights& weights = m_deviceWeights.get(m_weights, device, m_arch.move);
            auto mixer = [&](int l, const torch::Tensor& normed, const Precision& precision,
                             int threads, LayerRecord* rec) {
                if (m_arch.mixDocuments)
                    return m_arch.mixDocuments(m_config, weights.layers[l], normed, precision,
                                               threads, options.documentStarts, rec);
                return m_arch.mix(m_config, weights.layers[l], normed, precision, threads, rec);
            };
            const bool packed = options.documentStarts.size() > 1 && m_arch.cudaPathDocuments;
            return weights.stack.run(
                ids, targets, options, probe, mixer,
                attentionPathOn(device, m_arch.cpuPath,
                                packed ? m_arch.cudaPathDocuments : m_arch.cudaPath));
        });
    }

private:
    Config m_config;
    Weights m_weights;
    FlaArch<Config, Weights> m_arch;
    DeviceWeightCache<Weights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace gatescope::core
