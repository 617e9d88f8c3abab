#include "engine/models/gatedfwa/gatedfwa_model.h"

#include "engine/models/gatedfwa/gatedfwa_block.h"
#include "engine/models/gatedfwa/gatedfwa_config.h"
#include "engine/models/gatedfwa/gatedfwa_weights.h"
#include "engine/nn/device.h"
#include "engine/nn/forward_support.h"
#include "engine/nn/tensor_convert.h"
#include "engine/nn/token_stats.h"

namespace gatescope::core::gatedfwa {

namespace {

void moveWeights(GatedFwaWeights& w, const DeviceMover& move) {
    const bool tied = w.lmHead.weight.is_same(w.embeddings);
    move(w.embeddings);
    if (tied) {
        w.lmHead = Linear{};
        w.lmHead.weight = w.embeddings;
    } else {
        move(w.lmHead);
    }
    for (auto& l : w.layers) {
        for (auto* lin : {&l.q, &l.k, &l.v, &l.proj, &l.kShift, &l.vShift, &l.fgate, &l.lambda,
                          &l.fc, &l.mlpProj})
            move(*lin);
    }
}

class GatedFwaModel final : public Model {
public:
    GatedFwaModel(GatedFwaConfig config, GatedFwaWeights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.family = "gatedfwa";
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
        // nanochat keeps its rotary tables in bf16 (also in a float32 model). Its rotation is
        // y1 = x1 cos + x2 sin, i.e. applyRotaryHalf's with the sine negated.
        const auto& device = session.device();
        const GatedFwaWeights& weights = m_deviceWeights.get(m_weights, device, moveWeights);
        auto [cos, sin] = rotaryTables(session.n(), m_config.headDim, kRopeBase);
        cos = onDevice(roundTrip(cos, torch::kBFloat16), device);
        sin = onDevice(-roundTrip(sin, torch::kBFloat16), device);
        const BlockContext context{m_config, precision, cos, sin, options.threads};

        auto x = parameterFreeNorm(weights.embeddings.index_select(0, session.idTensor()),
                                   torch::kFloat32);
        for (int l = 0; l < m_config.layers; ++l) {
            session.beginLayer(l);
            const bool record = probe && probe->wantsLayer(l);
            LayerRecord rec;
            if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
            x = gatedFwaBlock(l, weights.layers[l], x, context, record ? &rec : nullptr, probe);
            if (record) probe->onLayer(std::move(rec));
        }
        ForwardResult result;
        auto hidden = parameterFreeNorm(x, torch::kFloat32);
        if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
        // Returned logits carry the inference softcap; loss, rank and entropy use the raw logits,
        // as nanochat's training and evaluation loss does.
        LogitsHead head{&weights.lmHead, m_config.vocabSize, kLogitSoftcap, false};
        session.progress(0.99, "logits");
        computeTokenStats(hidden, head, session.targets(), precision, options.returnLogits, result);
        result.attentionPath = attentionPathOn(device, "cpu-blockwise", "cuda-fused");
        return result;
    }

    GatedFwaConfig m_config;
    GatedFwaWeights m_weights;
    mutable DeviceWeightCache<GatedFwaWeights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace

std::unique_ptr<Model> loadGatedFwaModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseGatedFwaConfig(checkpoint->config(), store.configFile());
    auto weights = loadGatedFwaWeights(config, store);
    return std::make_unique<GatedFwaModel>(std::move(config), std::move(weights),
                                           checkpoint->modelType());
}

}  // namespace gatescope::core::gatedfwa
