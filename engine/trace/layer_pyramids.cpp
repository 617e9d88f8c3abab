// LayerRecorder::writePyramids: one head at a time, exact tiles from the layer's factors pooled
// into the stored levels, each head's levels written (compressed in parallel) while the next
// head's are built.
#include <algorithm>
#include <future>
#include <memory>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "core/maps/head_maps.h"
#include "core/model/model.h"
#include "data/trace/pyramid_geometry.h"
#include "engine/torch_pch.h"
#include "engine/trace/layer_recorder.h"
#include "engine/trace/level_cells.h"
#include "kernels/cpu/pyramid_builder.h"
#ifdef GATESCOPE_HAS_CUDA
#include "engine/nn/device_check.h"
#include "kernels/cuda/attention_cuda.h"
#endif

namespace gatescope::core {

namespace {

#ifdef GATESCOPE_HAS_CUDA
/// Whether kernels::cuda::buildWallPyramids computes this Wall layer's maps: it knows no window,
/// scalar gate or packed documents, so such layers take the exact CPU tiles (the sink needs
/// nothing: the stored lse holds it). The extras are the layer's own (wall_layer.cpp).
bool wallTilesOnDevice(const MapSpec& spec) {
    const bool scalarGate = spec.extras.value("scalar_gate", false);
    const auto documents = spec.extras.value("document_starts", nlohmann::json::array());
    return spec.window == 0 && !scalarGate && documents.size() <= 1;
}
#endif

/// Head `head`'s slice of every factor; [Hkv, N, D] factors map query heads onto kv heads.
HeadFactorSet headFactors(const LayerRecord& rec, int head) {
    HeadFactorSet set;
    for (const auto& [name, array] : rec.factors) {
        if (array.shape.size() < 2) continue;
        const int64_t stored = array.shape[0], n = array.shape[1];
        const int64_t width = array.shape.size() == 3 ? array.shape[2] : 1;
        const int64_t index =
            stored == rec.attention.heads ? head : head * stored / rec.attention.heads;
        const auto begin = array.data.begin() + index * n * width;
        set.n = n;
        set.add(name, std::vector<float>(begin, begin + n * width), width);
    }
    return set;
}

}  // namespace

Status LayerRecorder::writePyramids(const LayerRecord& rec) {
    const MapSpec spec = mapSpecOf(rec.attention);
    const int64_t n = m_writer.nTokens();
    const auto levels = data::defaultPyramidLevels(n, m_request.pyramidFinestSide);
    // Maps the writer derives from the stored c (format v3's decay maps) are not built.
    std::vector<kernels::MapKind> maps;
    for (auto kind : availableMaps(spec)) {
        const std::string map = kernels::toString(kind);
        auto st = m_writer.createPyramid(rec.layer, map, levels, rec.attention.heads);
        if (!st) return st;
        if (!m_writer.derivesPyramid(rec.layer, map)) maps.push_back(kind);
    }
    std::set<int> heads(m_request.pyramidHeads.begin(), m_request.pyramidHeads.end());
    if (rec.deviceFactors && spec.scoreKind == ScoreKind::AdditiveDecay)
        return writeDevicePyramids(rec, levels.finest, levels.coarsest, maps, heads);
#ifdef GATESCOPE_HAS_CUDA
    if (cudaDeviceIndex(m_request.device) &&
        (spec.scoreKind == ScoreKind::Power || spec.scoreKind == ScoreKind::Gsa ||
         (spec.scoreKind == ScoreKind::Wall && wallTilesOnDevice(spec))))
        return writeGatedDevicePyramids(rec, spec, levels.finest, levels.coarsest, maps, heads);
#endif
    // One head's map is built into whole levels, then written (tiles compressed in parallel) on
    // a second thread while the next one builds: at most two sets of levels in memory.
    std::future<Status> writing;
    auto waitWriting = [&]() -> Status { return writing.valid() ? writing.get() : Status(Ok{}); };
    for (int head = 0; head < rec.attention.heads; ++head) {
        if (!heads.empty() && !heads.count(head)) continue;
        const auto factors = headFactors(rec, head);
        auto source = makeTileSource(spec, factors);
        if (!source) {
            Error e = source.error();
            e.message = fmt::format("layer {} head {}: {}", rec.layer, head, e.message);
            return e;
        }
        for (auto kind : maps) {
            kernels::PyramidRequest request;
            request.kind = kind;
            request.finestLevel = levels.finest;
            request.coarsestLevel = levels.coarsest;
            request.threads = m_request.threads;
            auto built = std::make_shared<LevelCells>(n, levels);
            kernels::PyramidCallbacks callbacks;
            callbacks.onTile = [&](int level, kernels::Pool pool, int64_t row, int64_t col,
                                   const float* tile) {
                built->place(level, pool == kernels::Pool::Max ? data::Pool::Max : data::Pool::Mean,
                             row, col, tile);
            };
            callbacks.isCancelled = [&] { return m_cancel && m_cancel->load(); };
            if (auto st = kernels::buildPyramid(**source, request, callbacks); !st) return st;
            if (auto st = waitWriting(); !st) return st;
            writing = std::async(
                std::launch::async,
                [this, layer = rec.layer, head, built, map = kernels::toString(kind)]() -> Status {
                    return built->writeTo(m_writer, layer, map, head);
                });
        }
    }
    if (auto st = waitWriting(); !st) return st;
    return Ok{};
}

Status LayerRecorder::writeDevicePyramids(const LayerRecord& rec, int finestLevel,
                                          int coarsestLevel,
                                          const std::vector<kernels::MapKind>& maps,
                                          const std::set<int>& heads) {
#ifndef GATESCOPE_HAS_CUDA
    return Error{ErrorKind::Internal, "device factors in a build without CUDA kernels", {}, {}};
#else
    const DeviceFactors& f = *rec.deviceFactors;
    const int count = coarsestLevel - finestLevel + 1;
    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA);
    std::vector<torch::Tensor> maxLevels, meanLevels;
    std::vector<float*> maxPtrs, meanPtrs;
    for (int i = 0; i < count; ++i) {
        const int64_t side = kernels::cuda::pyramidSide(f.n, finestLevel + i);
        maxLevels.push_back(torch::empty({side, side}, options));
        meanLevels.push_back(torch::empty({side, side}, options));
        maxPtrs.push_back(maxLevels.back().data_ptr<float>());
        meanPtrs.push_back(meanLevels.back().data_ptr<float>());
    }
    const int group = std::max(1, f.heads / std::max(1, f.kvHeads));
    for (int head = 0; head < rec.attention.heads; ++head) {
        if (!heads.empty() && !heads.count(head)) continue;
        if (m_cancel && m_cancel->load()) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
        kernels::cuda::DeviceHeadFactors h;
        h.n = f.n;
        h.dk = f.dk;
        h.dtype = kernels::cuda::DType::F32;
        h.q = f.q + int64_t{head} * f.n * f.dk;
        h.k = f.k + int64_t{head / group} * f.n * f.dk;
        h.lse = f.lse + int64_t{head} * f.n;
        h.logDecayCumsum =
            f.logDecayCumsum && rec.attention.hasDecay ? f.logDecayCumsum + head * f.n : nullptr;
        h.scale = static_cast<float>(rec.attention.scale);
        h.window = rec.attention.window;
        for (auto kind : maps) {
            const std::string map = kernels::toString(kind);
            const std::string error = kernels::cuda::buildPyramid(
                h, kind, finestLevel, coarsestLevel, maxPtrs.data(), meanPtrs.data(), nullptr);
            if (!error.empty()) {
                return Error{
                    ErrorKind::Internal,
                    fmt::format("layer {} head {}: GPU pyramid: {}", rec.layer, head, error),
                    {},
                    {}};
            }
            for (int i = 0; i < count; ++i) {
                const int level = finestLevel + i;
                if (!m_writer.storesPyramidLevel(rec.layer, map, level)) continue;
                const auto hostMax = maxLevels[i].cpu();
                const auto hostMean = meanLevels[i].cpu();
                for (auto pool : {data::Pool::Max, data::Pool::Mean}) {
                    const float* src =
                        (pool == data::Pool::Max ? hostMax : hostMean).data_ptr<float>();
                    auto st = m_writer.writePyramidLevel(rec.layer, map, pool, level, head, src);
                    if (!st) return st;
                }
            }
        }
    }
    return Ok{};
#endif
}

}  // namespace gatescope::core
