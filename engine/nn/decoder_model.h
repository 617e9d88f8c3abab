// Private to engine/models: the Model that every architecture of the zoo is, a decoder-only
// stack around the parts that differ:
//   x = embed(ids);  x = block_l(x) for each layer l;  logits = head(finalNorm(x)).
// DecoderModel owns the config, the host weights and their device copy, fills ModelInfo, and runs
// the forward's bookkeeping (input checks, cancellation and progress between layers, probe
// records with hiddenIn, finalHidden, per-token statistics, errors as values). An architecture
// supplies the rest as a DecoderArch.
#pragma once

#include <concepts>
#include <span>
#include <string>
#include <utility>

#include "core/model/model.h"
#include "core/model/probe.h"
#include "engine/nn/device.h"
#include "engine/nn/forward_support.h"
#include "engine/nn/tensor_convert.h"
#include "engine/nn/token_stats.h"

namespace gatescope::core {

/// What one forward hands its architecture. Every reference outlives the forward's Arch object.
template <class Config, class Weights>
struct DecoderPass {
    const Config& config;
    const Weights& weights;  ///< on session.device()
    const ForwardSession& session;
    const Precision& precision;
    const RunOptions& options;
    const Probe* probe;  ///< not null whenever a block is handed a LayerRecord
};

/// An architecture: static members for the model's lifetime, an object for one forward (most
/// derive from DecoderArchBase).
///  - Config: layers, heads, kvHeads, hiddenSize, vocabSize, and bosTokenId (< 0: none) where the
///    checkpoint has one; ModelInfo takes them as they are.
///  - describe(config, info): the rest of ModelInfo (family, headDim, packedDocuments).
///  - move(weights, mover): moves a copy of the weights to a device (DeviceWeightCache).
///  - Arch(pass): built once per forward, after the weights reached the device; holds what every
///    layer of that forward shares (rotary tables on the device, ...).
///  - embed(ids [N] int64): the residual stream entering layer 0.
///  - block(layer, x, record): the residual stream leaving `layer`. A non-null `record` (layer and
///    hiddenIn already set) receives the layer's attention header, factors and retention.
///  - finalNorm(x): the hidden states [N, d] the head reads (float32).
///  - head(): the LM head; attentionPath(): ForwardResult::attentionPath.
template <class Arch>
concept DecoderArch =
    requires(const typename Arch::Config& config, typename Arch::Weights& weights, ModelInfo& info,
             const DeviceMover& mover,
             const DecoderPass<typename Arch::Config, typename Arch::Weights>& pass,
             const Arch& arch, const torch::Tensor& x, LayerRecord* record) {
    Arch::describe(config, info);
    Arch::move(weights, mover);
    Arch{pass};
    { arch.embed(x) } -> std::same_as<torch::Tensor>;
    { arch.block(0, x, record) } -> std::same_as<torch::Tensor>;
    { arch.finalNorm(x) } -> std::same_as<torch::Tensor>;
    { arch.head() } -> std::same_as<LogitsHead>;
    { arch.attentionPath() } -> std::convertible_to<std::string>;
};

/// The types and the pass that every per-forward Arch object holds. The pass is held by
/// reference: DecoderModel keeps it alive for as long as the object.
template <class ConfigT, class WeightsT>
class DecoderArchBase {
public:
    using Config = ConfigT;
    using Weights = WeightsT;
    using Pass = DecoderPass<Config, Weights>;

    explicit DecoderArchBase(const Pass& pass) : m_pass(pass) {}

protected:
    const Pass& pass() const { return m_pass; }

private:
    const Pass& m_pass;
};

/// forward() may be called repeatedly but not concurrently (the device copy of the weights is
/// made on the first forward on that device and kept). Errors come back as values (guarded):
/// bad ids, cancellation, out of memory, LibTorch failures.
template <DecoderArch Arch>
class DecoderModel final : public Model {
public:
    using Config = typename Arch::Config;
    using Weights = typename Arch::Weights;
    using Pass = DecoderPass<Config, Weights>;

    DecoderModel(Config config, Weights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
        if constexpr (requires(const Config& c) { c.bosTokenId; }) {
            if (m_config.bosTokenId >= 0) m_info.bosId = m_config.bosTokenId;
        }
        Arch::describe(m_config, m_info);
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] { return run(ids, targets, options, probe); });
    }

private:
    ForwardResult run(std::span<const int32_t> ids, std::span<const int32_t> targets,
                      const RunOptions& options, Probe* probe) {
        ForwardSession session(ids, targets, m_config.vocabSize, options, m_config.layers);
        const Precision precision{options.dtype == ComputeDType::BFloat16};
        const Weights& weights = m_deviceWeights.get(m_weights, session.device(), &Arch::move);
        const Pass pass{m_config, weights, session, precision, options, probe};
        const Arch arch(pass);

        auto x = arch.embed(session.idTensor());
        for (int l = 0; l < m_config.layers; ++l) {
            session.beginLayer(l);
            const bool record = probe && probe->wantsLayer(l);
            LayerRecord rec;
            rec.layer = l;
            if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
            x = arch.block(l, x, record ? &rec : nullptr);
            if (record) probe->onLayer(std::move(rec));
        }
        ForwardResult result;
        auto hidden = arch.finalNorm(x);
        if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
        session.progress(0.99, "logits");
        computeTokenStats(hidden, arch.head(), session.targets(), precision, options.returnLogits,
                          result);
        result.attentionPath = arch.attentionPath();
        return result;
    }

    Config m_config;
    Weights m_weights;
    DeviceWeightCache<Weights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace gatescope::core
