// LayerRecorder::writeGatedDevicePyramids: Wall, power and GSA pyramids of a trace that runs on
// CUDA, built on the GPU for all heads at once (kernels::cuda::buildWallPyramids,
// buildPowerPyramids, buildGsaPyramids) from the layer's host factors, which go back up once:
// O(N d) per head, while the maps are O(N^2).
#include <functional>

#include <fmt/format.h>

#include "data/trace/pyramid_geometry.h"
#include "engine/torch_pch.h"
#include "engine/trace/layer_recorder.h"
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
    const bool wall = spec.scoreKind == ScoreKind::Wall, gsa = spec.scoreKind == ScoreKind::Gsa;
    const auto onGpu = [&](const char* name) {
        const auto it = rec.factors.find(name);
        if (it == rec.factors.end()) return torch::Tensor();
        auto& array = const_cast<FloatArray&>(it->second);
        return torch::from_blob(array.data.data(), array.shape, torch::kFloat32)
            .to(torch::kCUDA)
            .contiguous();
    };
    const int count = rec.attention.heads;
    // One map's levels for all heads: (kind, maxOut, meanOut) -> "" or the error.
    std::function<std::string(kernels::MapKind, float* const*, float* const*)> build;
    int64_t n = 0;
    torch::Tensor q, k, norm, cumsum, probs, write;
    kernels::cuda::WallBatch wallBatch;
    kernels::cuda::PowerBatch powerBatch;
    kernels::cuda::GsaBatch gsaBatch;
    if (gsa) {
        probs = onGpu("slot_probs"), write = onGpu("write"), cumsum = onGpu("log_forget_cumsum");
        if (!probs.defined() || !write.defined() || !cumsum.defined())
            return fail(ErrorKind::Missing,
                        "the layer lacks slot_probs, write or log_forget_cumsum");
        if (probs.dim() != 3 || probs.size(0) != count || !probs.sizes().equals(write.sizes()) ||
            !probs.sizes().equals(cumsum.sizes()))
            return fail(ErrorKind::Shape, "slot_probs, write, log_forget_cumsum not [H, N, slots]");
        n = probs.size(1);
        gsaBatch.heads = count;
        gsaBatch.n = n;
        gsaBatch.slots = static_cast<int>(probs.size(2));
        gsaBatch.slotProbs = probs.data_ptr<float>();
        gsaBatch.write = write.data_ptr<float>();
        gsaBatch.logForgetCumsum = cumsum.data_ptr<float>();
        build = [&](kernels::MapKind kind, float* const* maxOut, float* const* meanOut) {
            return kernels::cuda::buildGsaPyramids(gsaBatch, kind, finestLevel, coarsestLevel,
                                                   maxOut, meanOut, nullptr);
        };
    } else {
        q = onGpu("q"), k = onGpu("k"), norm = onGpu(wall ? "lse" : "log_normalizer");
        cumsum = onGpu("log_decay_cumsum");
        if (!q.defined() || !k.defined() || !norm.defined())
            return fail(ErrorKind::Missing, "the layer lacks q, k or its row normalizer");
        n = q.size(1);
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
        build = [&](kernels::MapKind kind, float* const* maxOut, float* const* meanOut) {
            const float* normalizer = norm.data_ptr<float>();
            return wall ? kernels::cuda::buildWallPyramids(wallBatch, normalizer, kind, finestLevel,
                                                           coarsestLevel, maxOut, meanOut, nullptr)
                        : kernels::cuda::buildPowerPyramids(powerBatch, normalizer, kind,
                                                            finestLevel, coarsestLevel, maxOut,
                                                            meanOut, nullptr);
        };
    }

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
        const std::string error = build(kind, maxPtrs.data(), meanPtrs.data());
        if (!error.empty()) return fail(ErrorKind::Internal, error);
        const std::string map = kernels::toString(kind);
        for (std::size_t i = 0; i < maxLevels.size(); ++i) {
            if (!m_writer.storesPyramidLevel(rec.layer, map, finestLevel + int(i))) continue;
            const int64_t side = maxLevels[i].size(1);
            const auto hostMax = maxLevels[i].cpu(), hostMean = meanLevels[i].cpu();
            for (int head = 0; head < count; ++head) {
                if (!heads.empty() && !heads.count(head)) continue;
                for (auto pool : {data::Pool::Max, data::Pool::Mean}) {
                    const float* src =
                        (pool == data::Pool::Max ? hostMax : hostMean).data_ptr<float>() +
                        head * side * side;
                    auto st = m_writer.writePyramidLevel(rec.layer, map, pool, finestLevel + int(i),
                                                         head, src);
                    if (!st) return st;
                }
            }
        }
    }
    return Ok{};
#endif
}

}  // namespace gatescope::core
