#include "engine/models/power/power_model.h"

#include "engine/models/power/power_attention_op.h"
#include "engine/models/power/power_config.h"
#include "engine/models/power/power_layer.h"
#include "engine/models/power/power_rotary.h"
#include "engine/models/power/power_weights.h"
#include "engine/nn/device.h"
#include "engine/nn/forward_support.h"
#include "engine/nn/tensor_convert.h"
#include "engine/nn/token_stats.h"

namespace gatescope::core::power {

namespace {

void moveWeights(PowerWeights& w, const DeviceMover& move) {
    const bool tied = w.lmHead.weight.is_same(w.embeddings);
    for (auto* t : {&w.embeddings, &w.lnFWeight, &w.lnFBias})
        move(*t);
    if (tied) {
        w.lmHead = Linear{};
        w.lmHead.weight = w.embeddings;
    } else {
        move(w.lmHead);
    }
    for (auto& l : w.layers) {
        for (auto* t : {&l.ln1Weight, &l.ln1Bias, &l.ln2Weight, &l.ln2Bias})
            move(*t);
        for (auto* lin : {&l.qkvg, &l.attnOut, &l.fc, &l.mlpOut})
            move(*lin);
    }
}

class PowerModel final : public Model {
public:
    PowerModel(PowerConfig config, PowerWeights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.family = m_config.kernel == AttentionKernel::Power ? "power" : "transformer";
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.headDim = m_config.headDim;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] { return run(ids, targets, options, probe); });
    }

private:
    ForwardResult run(std::span<const int32_t> ids, std::span<const int32_t> targetsIn,
                      const RunOptions& options, Probe* probe) const {
        ForwardSession session(ids, targetsIn, m_config.vocabSize, options, m_config.layers);
        const Precision precision{options.dtype == ComputeDType::BFloat16};
        // The rotary depends on the whole traced length, as train/model.py computes it.
        const auto& device = session.device();
        const PowerWeights& weights = m_deviceWeights.get(m_weights, device, moveWeights);
        auto [sin, cos] = sequenceRotaryTables(session.n(), m_config.headDim);
        sin = onDevice(sin, device);
        cos = onDevice(cos, device);
        const BlockContext ctx{m_config, precision, sin, cos, options.threads};

        // GPT.forward casts the embeddings to the autocast dtype: under bf16 the residual
        // stream itself is bfloat16.
        auto x = weights.embeddings.index_select(0, session.idTensor()).to(precision.activation());
        for (int l = 0; l < m_config.layers; ++l) {
            session.beginLayer(l);
            const bool record = probe && probe->wantsLayer(l);
            LayerRecord rec;
            if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
            x = runBlock(ctx, l, weights.layers[l], x, record ? &rec : nullptr);
            if (record) probe->onLayer(std::move(rec));
        }
        ForwardResult result;
        auto hidden = modelLayerNorm(x, weights.lnFWeight, weights.lnFBias);
        if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
        LogitsHead head{&weights.lmHead, m_config.vocabSize, std::nullopt, false};
        session.progress(0.99, "logits");
        computeTokenStats(hidden, head, session.targets(), precision, options.returnLogits, result);
        result.attentionPath =
            m_config.kernel == AttentionKernel::Power
                ? attentionPathOn(
                      device, "cpu-blockwise-power",
                      fusedCudaPowerAttention(m_config.headDim, m_config.headDim, m_config.degree)
                          ? "cuda-tiled-power"
                          : "cuda-torch-chunked-power")
                : attentionPathOn(device, "cpu-blockwise", "cuda-fused");
        return result;
    }

    PowerConfig m_config;
    PowerWeights m_weights;
    mutable DeviceWeightCache<PowerWeights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace

std::unique_ptr<Model> loadPowerModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parsePowerConfig(checkpoint->config(), store.configFile());
    auto weights = loadPowerWeights(config, store);
    return std::make_unique<PowerModel>(std::move(config), std::move(weights),
                                        checkpoint->modelType());
}

}  // namespace gatescope::core::power
