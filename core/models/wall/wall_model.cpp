#include "core/models/wall/wall_model.h"

#include "core/models/wall/wall_config.h"
#include "core/models/wall/wall_layer.h"
#include "core/models/wall/wall_weights.h"
#include "core/nn/fla_model.h"

namespace gatescope::core::wall {

namespace {

void moveWeights(WallWeights& w, const DeviceMover& move) {
    moveFlaStack(w.stack, move);
    for (auto& l : w.layers) {
        for (auto* lin : {&l.q, &l.k, &l.v, &l.g, &l.o})
            move(*lin);
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
    arch.mix = &wallAttention;
    arch.move = &moveWeights;
    arch.cpuPath = "cpu-blockwise-wall";
#ifdef GATESCOPE_HAS_CUDA
    // The anchored per-channel forward of kernels/cuda (wall_power_cuda.h), on the GPU.
    arch.cudaPath = config.headDim <= 256
                        ? "cuda-tiled-wall"
                        : "cuda+cpu-blockwise-wall (Wall op on CPU: head dim > 256)";
#else
    arch.cudaPath = "cuda+cpu-blockwise-wall (Wall op on CPU: no CUDA kernels in this build)";
#endif
    return std::make_unique<FlaModel<WallConfig, WallWeights>>(
        std::move(config), std::move(weights), checkpoint->modelType(), arch);
}

}  // namespace gatescope::core::wall
