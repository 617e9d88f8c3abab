#include "core/models/gsa/gsa_model.h"

#include "core/models/gsa/gsa_config.h"
#include "core/models/gsa/gsa_layer.h"
#include "core/models/gsa/gsa_weights.h"
#include "core/nn/forward_support.h"
#include "core/nn/tensor_convert.h"
#include "core/nn/token_stats.h"

namespace gatescope::core::gsa {

namespace {

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
        return guarded<ForwardResult>([&] { return run(ids, targets, options, probe); });
    }

private:
    ForwardResult run(std::span<const int32_t> ids, std::span<const int32_t> targetsIn,
                      const RunOptions& options, Probe* probe) const {
        ForwardSession session(ids, targetsIn, m_config.vocabSize, options, m_config.layers);
        const Precision precision{options.dtype == ComputeDType::BFloat16};
        auto x = m_weights.embeddings.index_select(0, session.idTensor());
        for (int l = 0; l < m_config.layers; ++l) {
            session.beginLayer(l);
            const bool record = probe && probe->wantsLayer(l);
            LayerRecord rec;
            rec.layer = l;
            if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
            x = block(l, x, precision, options.threads, record ? &rec : nullptr);
            if (record) probe->onLayer(std::move(rec));
        }
        ForwardResult result;
        auto hidden = rmsNorm(x, m_weights.finalNorm, m_config.normEps, torch::kFloat32);
        if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
        LogitsHead head{&m_weights.lmHead, m_config.vocabSize, std::nullopt, false};
        session.progress(0.99, "logits");
        computeTokenStats(hidden, head, session.targets(), precision, options.returnLogits, result);
        result.attentionPath = "cpu-chunked-gsa";
        return result;
    }

    /// h = x + GSA(RMSNorm(x)); out = h + down(silu(gate(RMSNorm(h))) * up(RMSNorm(h))).
    torch::Tensor block(int l, const torch::Tensor& x, const Precision& precision, int threads,
                        LayerRecord* rec) const {
        const auto& w = m_weights.layers[l];
        const auto act = precision.activation();
        auto a = rmsNorm(x, w.attnNorm, m_config.normEps, act);
        auto residual = x + gsaAttention(m_config, w, a, precision, threads, rec);
        auto m = rmsNorm(residual, w.mlpNorm, m_config.normEps, act);
        auto gate = w.gate(m, precision).to(torch::kFloat32);
        auto up = w.up(m, precision).to(torch::kFloat32);
        auto hidden = (torch::silu(gate) * up).to(act);
        return residual + w.down(hidden, precision).to(torch::kFloat32);
    }

    GsaConfig m_config;
    GsaWeights m_weights;
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
