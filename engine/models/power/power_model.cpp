#include "engine/models/power/power_model.h"

#include <string>
#include <tuple>

#include "engine/models/power/power_attention_op.h"
#include "engine/models/power/power_config.h"
#include "engine/models/power/power_layer.h"
#include "engine/models/power/power_rotary.h"
#include "engine/models/power/power_weights.h"
#include "engine/nn/decoder_model.h"

namespace gatescope::core::power {

namespace {

class PowerDecoder final : public DecoderArchBase<PowerConfig, PowerWeights> {
public:
    static void describe(const PowerConfig& c, ModelInfo& info) {
        info.family = c.kernel == AttentionKernel::Power ? "power" : "transformer";
        info.headDim = c.headDim;
        info.gateChannels = c.kernel == AttentionKernel::Power && c.gating ? 1 : 0;
        info.gateGroup = c.qheadRatio;
    }

    static void move(PowerWeights& w, const DeviceMover& move) {
        move.embeddingsAndHead(w.embeddings, w.lmHead);
        for (auto* t : {&w.lnFWeight, &w.lnFBias})
            move(*t);
        for (auto& l : w.layers) {
            for (auto* t : {&l.ln1Weight, &l.ln1Bias, &l.ln2Weight, &l.ln2Bias})
                move(*t);
            for (auto* lin : {&l.qkvg, &l.attnOut, &l.fc, &l.mlpOut})
                move(*lin);
        }
    }

    explicit PowerDecoder(const Pass& pass) : DecoderArchBase(pass) {
        // The rotary depends on the whole traced length, as train/model.py computes it.
        std::tie(m_sin, m_cos) = sequenceRotaryTables(pass.session.n(), pass.config.headDim);
        m_sin = onDevice(m_sin, pass.session.device());
        m_cos = onDevice(m_cos, pass.session.device());
    }

    torch::Tensor embed(const torch::Tensor& ids) const {
        // GPT.forward casts the embeddings to the autocast dtype: under bf16 the residual
        // stream itself is bfloat16.
        return pass().weights.embeddings.index_select(0, ids).to(pass().precision.activation());
    }

    torch::Tensor block(int layer, const torch::Tensor& x, LayerRecord* record) const {
        const BlockContext context{pass().config,          pass().precision, m_sin, m_cos,
                                   pass().options.threads, &pass().options,  layer};
        return runBlock(context, pass().weights.layers[layer], x, record);
    }

    torch::Tensor finalNorm(const torch::Tensor& x) const {
        return modelLayerNorm(x, pass().weights.lnFWeight, pass().weights.lnFBias);
    }

    LogitsHead head() const {
        return {&pass().weights.lmHead, pass().config.vocabSize, std::nullopt, false};
    }

    std::string attentionPath() const {
        const auto& c = pass().config;
        const auto& device = pass().session.device();
        if (c.kernel != AttentionKernel::Power)
            return attentionPathOn(device, "cpu-blockwise", "cuda-fused");
        return attentionPathOn(device, "cpu-blockwise-power",
                               fusedCudaPowerAttention(c.headDim, c.headDim, c.degree)
                                   ? "cuda-tiled-power"
                                   : "cuda-torch-chunked-power");
    }

private:
    torch::Tensor m_sin, m_cos;  ///< sequenceRotaryTables(N, d) on the device
};

}  // namespace

std::unique_ptr<Model> loadPowerModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parsePowerConfig(checkpoint->config(), store.configFile());
    auto weights = loadPowerWeights(config, store);
    return std::make_unique<DecoderModel<PowerDecoder>>(std::move(config), std::move(weights),
                                                        checkpoint->modelType());
}

}  // namespace gatescope::core::power
