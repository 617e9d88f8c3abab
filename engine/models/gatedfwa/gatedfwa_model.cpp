#include "engine/models/gatedfwa/gatedfwa_model.h"

#include <string>

#include "engine/models/gatedfwa/gatedfwa_block.h"
#include "engine/models/gatedfwa/gatedfwa_config.h"
#include "engine/models/gatedfwa/gatedfwa_weights.h"
#include "engine/nn/decoder_model.h"

namespace gatescope::core::gatedfwa {

namespace {

class GatedFwaDecoder final : public DecoderArchBase<GatedFwaConfig, GatedFwaWeights> {
public:
    static void describe(const GatedFwaConfig& c, ModelInfo& info) {
        info.family = "gatedfwa";
        info.headDim = c.headDim;
        info.gateChannels = c.forgetGate ? 1 : 0;
    }

    static void move(GatedFwaWeights& w, const DeviceMover& move) {
        move.embeddingsAndHead(w.embeddings, w.lmHead);
        for (auto& l : w.layers) {
            for (auto* lin : {&l.q, &l.k, &l.v, &l.proj, &l.kShift, &l.vShift, &l.fgate, &l.lambda,
                              &l.fc, &l.mlpProj})
                move(*lin);
        }
    }

    explicit GatedFwaDecoder(const Pass& pass) : DecoderArchBase(pass) {
        // nanochat keeps its rotary tables in bf16 (also in a float32 model). Its rotation is
        // y1 = x1 cos + x2 sin, i.e. applyRotaryHalf's with the sine negated.
        const auto& device = pass.session.device();
        auto [cos, sin] = rotaryTables(pass.session.n(), pass.config.headDim, kRopeBase);
        m_cos = onDevice(roundTrip(cos, torch::kBFloat16), device);
        m_sin = onDevice(-roundTrip(sin, torch::kBFloat16), device);
    }

    torch::Tensor embed(const torch::Tensor& ids) const {
        return parameterFreeNorm(pass().weights.embeddings.index_select(0, ids), torch::kFloat32);
    }

    torch::Tensor block(int layer, const torch::Tensor& x, LayerRecord* record) const {
        const BlockContext context{pass().config,          pass().precision, m_cos, m_sin,
                                   pass().options.threads, &pass().options,  layer};
        return gatedFwaBlock(pass().weights.layers[layer], x, context, record, pass().probe);
    }

    torch::Tensor finalNorm(const torch::Tensor& x) const {
        return parameterFreeNorm(x, torch::kFloat32);
    }

    LogitsHead head() const {
        // Returned logits carry the inference softcap; loss, rank and entropy use the raw logits,
        // as nanochat's training and evaluation loss does.
        return {&pass().weights.lmHead, pass().config.vocabSize, kLogitSoftcap, false};
    }

    std::string attentionPath() const {
        return attentionPathOn(pass().session.device(), "cpu-blockwise", "cuda-fused");
    }

private:
    torch::Tensor m_cos, m_sin;  ///< [N, D/2] on the device (see the constructor)
};

}  // namespace

std::unique_ptr<Model> loadGatedFwaModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseGatedFwaConfig(checkpoint->config(), store.configFile());
    auto weights = loadGatedFwaWeights(config, store);
    return std::make_unique<DecoderModel<GatedFwaDecoder>>(std::move(config), std::move(weights),
                                                           checkpoint->modelType());
}

}  // namespace gatescope::core::gatedfwa
