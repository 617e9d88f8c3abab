#include "engine/models/gsa/gsa_model.h"

#include "engine/models/gsa/gsa_config.h"
#include "engine/models/gsa/gsa_layer.h"
#include "engine/models/gsa/gsa_weights.h"
#include "engine/nn/fla_decoder.h"

namespace gatescope::core::gsa {

namespace {

class GsaDecoder final : public FlaDecoder<GsaConfig, GsaWeights> {
public:
    using FlaDecoder::FlaDecoder;

    static void describe(const GsaConfig& c, ModelInfo& info) {
        info.family = "gsa";
        info.headDim = c.headKDim;
        info.gateChannels = c.slots;
        info.gateGroup = c.group();
    }

    static void move(GsaWeights& w, const DeviceMover& move) {
        moveFlaStack(w.stack, move);
        for (auto& l : w.layers) {
            for (auto* lin : {&l.q, &l.k, &l.v, &l.f, &l.o, &l.featureMap})
                move(*lin);
            for (auto* t : {&l.qConv.weight, &l.qConv.bias, &l.kConv.weight, &l.kConv.bias,
                            &l.vConv.weight, &l.vConv.bias, &l.gNorm})
                move(*t);
        }
    }

    torch::Tensor block(int layer, const torch::Tensor& x, LayerRecord* record) const {
        const Pass& p = pass();
        return mixedBlock(layer, x, [&](const torch::Tensor& normed) {
            return gsaAttention(p.config, p.weights.layers[layer], normed, p.precision,
                                p.options.threads, record, &p.options, layer);
        });
    }

    std::string attentionPath() const {
        // On CUDA the slot-attention op runs as chunked LibTorch ops (gsa_torch_op.h).
        return attentionPathOn(pass().session.device(), "cpu-chunked-gsa",
                               "cuda-torch-chunked-gsa");
    }
};

}  // namespace

std::unique_ptr<Model> loadGsaModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseGsaConfig(checkpoint->config(), store.configFile());
    auto weights = loadGsaWeights(config, store);
    return std::make_unique<DecoderModel<GsaDecoder>>(std::move(config), std::move(weights),
                                                      checkpoint->modelType());
}

}  // namespace gatescope::core::gsa
