#include "engine/models/gsa/gsa_model.h"

#include "engine/models/gsa/gsa_config.h"
#include "engine/models/gsa/gsa_layer.h"
#include "engine/models/gsa/gsa_weights.h"
#include "engine/nn/fla_model.h"

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

}  // namespace

std::unique_ptr<Model> loadGsaModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseGsaConfig(checkpoint->config(), store.configFile());
    auto weights = loadGsaWeights(config, store);
    FlaArch<GsaConfig, GsaWeights> arch;
    arch.family = "gsa";
    arch.headDim = config.headKDim;
    arch.mix = &gsaAttention;
    arch.move = &moveWeights;
    // On CUDA the slot-attention op runs as chunked LibTorch ops (gsa_torch_op.h).
    arch.cpuPath = "cpu-chunked-gsa";
    arch.cudaPath = "cuda-torch-chunked-gsa";
    return std::make_unique<FlaModel<GsaConfig, GsaWeights>>(std::move(config), std::move(weights),
                                                             checkpoint->modelType(), arch);
}

}  // namespace gatescope::core::gsa
