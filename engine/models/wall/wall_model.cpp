#include "engine/models/wall/wall_model.h"

#include "engine/models/wall/wall_config.h"
#include "engine/models/wall/wall_layer.h"
#include "engine/models/wall/wall_weights.h"
#include "engine/nn/fla_model.h"

namespace gatescope::core::wall {

namespace {

void moveWeights(WallWeights& w, const DeviceMover& move) {
    moveFlaStack(w.stack, move);
    for (auto& l : w.layers) {
        for (auto* lin : {&l.q, &l.k, &l.v, &l.g, &l.o, &l.f})
            move(*lin);  // l.sink stays on the host: the Wall op reads its values there
    }
}

}  // namespace

std::unique_ptr<Model> loadWallModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseWallConfig(checkpoint->config(), store.configFile());
    auto weights = loadWallWeights(config, store);
    FlaArch<WallConfig, WallWeights> arch;
    arch.family = "wall";
    arch.headDim = config.headDim;
    arch.mixDocuments = &wallAttention;
    arch.move = &moveWeights;
    arch.cpuPath = "cpu-blockwise-wall";
    // The CUDA forward (kernels/cuda/wall_power_cuda.h) has no window, sink, scalar gate or
    // packed documents: such layers run the CPU kernel, and the path says so.
    const bool options = config.window > 0 || config.sinkBias || config.scalarGate;
#ifdef GATESCOPE_HAS_CUDA
    arch.cudaPath =
        config.headDim > 256 ? "cuda+cpu-blockwise-wall (Wall op on CPU: head dim > 256)"
        : options ? "cuda+cpu-blockwise-wall (Wall op on CPU: window, sink or scalar gate)"
                  : "cuda-tiled-wall";
    arch.cudaPathDocuments = "cuda+cpu-blockwise-wall (Wall op on CPU: packed documents)";
#else
    (void)options;
    arch.cudaPath = "cuda+cpu-blockwise-wall (Wall op on CPU: no CUDA kernels in this build)";
#endif
    return std::make_unique<FlaModel<WallConfig, WallWeights>>(
        std::move(config), std::move(weights), checkpoint->modelType(), arch);
}

}  // namespace gatescope::core::wall
