// LayerRecorder::writeGatedDevicePyramids: Wall and power pyramids of a trace that runs on CUDA,
// built on the GPU for all heads at once (kernels::cuda::buildWallPyramids / buildPowerPyramids)
// from the layer's host factors, which go back up once (O(N d) per head; the maps are O(N^2)).
#include <fmt/format.h>

#include "core/torch_pch.h"
#include "core/trace/layer_recorder.h"
#include "data/trace/pyramid_geometry.h"
#include "kernels/cpu/power_attention.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/wall_power_cuda.h"
#endif

namespace gatescope::core {

Status LayerRecorder::writeGatedDevicePyramids(const LayerRecord& rec, const MapSpec& spec,
                                               int finestLevel, int coarsestLevel,
                                               const std::vector<kernels::MapKind>& maps,
                                               const std::set<int>& heads) {
    const auto fail = [&](ErrorKind kind, const std::string& message) {
        return Error{kind, fmt::format("layer {}: GPU pyramids: {}", rec.layer, message), {}, {}};
    };
#ifndef GATESCOPE_HAS_CUDA
    (void)spec, (void)finestLevel, (void)coarsestLevel, (void)maps, (void)heads;
    return fail(ErrorKind::Internal, "a build without CUDA kernels");
#else
    const bool wall = spec.scoreKind == "wall";
    const auto onGpu = [&](const char* name) {
        const auto it = rec.factors.find(name);
        if (it == rec.factors.end()) return torch::Tensor();
        auto& array = const_cast<FloatArray&>(it->second);
        return torch::from_blob(array.data.data(), array.shape, torch::kFloat32)
            .to(torch::kCUDA)
            .contiguous();
    };
    const auto q = onGpu("q"), k = onGpu("k"), norm = onGpu(wall ? "lse" : "log_normalizer");
    const auto cumsum = onGpu("log_decay_cumsum");
    if (!q.defined() || !k.defined() || !norm.defined())
        return fail(ErrorKind::Missing, "the layer lacks q, k or its row normalizer");
    const int count = rec.attention.heads;
    const int64_t n = q.size(1);
    auto fill = [&](kernels::cuda::GatedHeads& b) {
        b.heads = count;
        b.n = n;
        b.dk = static_cast<int>(q.size(2));
        b.kvGroup = std::max<int>(1, count / static_cast<int>(k.size(0)));
        b.dtype = kernels::cuda::DType::F32;
        b.q = q.data_ptr<float>();
        b.k = k.data_ptr<float>();
        b.scale = static_cast<float>(spec.scale);
    };
    kernels::cuda::WallBatch wallBatch;
    kernels::cuda::PowerBatch powerBatch;
    fill(wallBatch);
    fill(powerBatch);
    const int gated = spec.extras.value("gated_channels", 0);
    if (wall && gated > 0) {
        if (!cumsum.defined() || cumsum.dim() != 3 || cumsum.size(2) != gated)
            return fail(ErrorKind::Shape, "log_decay_cumsum is not [gate heads, N, gated]");
        wallBatch.gatedChannels = gated;
        wallBatch.gateGroup = std::max<int>(1, count / static_cast<int>(cumsum.size(0)));
        wallBatch.logDecayCumsum = cumsum.data_ptr<float>();
    }
    if (!wall && cumsum.defined() && spec.hasDecay)  // [H, N]: already per query head
        powerBatch.logDecayCumsum = cumsum.data_ptr<float>();
    powerBatch.degree = spec.extras.value("p", 2);
    powerBatch.eps = spec.extras.value("eps", kernels::kPowerLogEps);

    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA);
    std::vector<torch::Tensor> maxLevels, meanLevels;
    std::vector<float*> maxPtrs, meanPtrs;
    for (int level = finestLevel; level <= coarsestLevel; ++level) {
        const int64_t side = kernels::cuda::pyramidSide(n, level);
        maxLevels.push_back(torch::empty({count, side, side}, options));
        meanLevels.push_back(torch::empty({count, side, side}, options));
        maxPtrs.push_back(maxLevels.back().data_ptr<float>());
        meanPtrs.push_back(meanLevels.back().data_ptr<float>());
    }
    for (auto kind : maps) {
        if (m_cancel && m_cancel->load()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        const float* normalizer = norm.data_ptr<float>();
        const std::string error =
            wall ? kernels::cuda::buildWallPyramids(wallBatch, normalizer, kind, finestLevel,
                                                    coarsestLevel, maxPtrs.data(), meanPtrs.data(),
                                                    nullptr)
                 : kernels::cuda::buildPowerPyramids(powerBatch, normalizer, kind, finestLevel,
                                                     coarsestLevel, maxPtrs.data(), meanPtrs.data(),
                                                     nullptr);
        if (!error.empty()) return fail(ErrorKind::Internal, error);
        const std::string map = kernels::toString(kind);
        for (std::size_t i = 0; i < maxLevels.size(); ++i) {
            const int64_t side = maxLevels[i].size(1);
            const auto hostMax = maxLevels[i].cpu(), hostMean = meanLevels[i].cpu();
            for (int head = 0; head < count; ++head) {
                if (!heads.empty() && !heads.count(head)) continue;
                for (auto pool : {data::Pool::Max, data::Pool::Mean}) {
                    const float* src =
                        (pool == data::Pool::Max ? hostMax : hostMean).data_ptr<float>() +
                        head * side * side;
                    auto st = writeLevelTiles(rec.layer, map, pool, finestLevel + int(i), head, src,
                                              side);
                    if (!st) return st;
                }
            }
        }
    }
    return Ok{};
#endif
}

}  // namespace gatescope::core
