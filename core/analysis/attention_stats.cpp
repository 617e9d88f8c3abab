#include "core/analysis/attention_stats.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/maps/trace_head.h"
#include "kernels/cpu/parallel_for.h"

namespace gatescope::core {

namespace {

constexpr int64_t kStatsRows = 64, kStatsCols = 1024;

int distanceBin(int64_t d) {
    int bin = 0;
    while (d > 0) {
        d >>= 1;
        ++bin;
    }
    return bin;  // 0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3
}

/// The horizon of row i, whose mass per column chunk of kStatsCols keys is chunkMass[0..]: walks
/// the chunks from the diagonal back to the one where the recent mass reaches `share` of the row's,
/// then recomputes that chunk's weights of row i alone to find the key.
double rowHorizon(const TraceHead& th, int64_t i, const double* chunkMass, double share,
                  std::vector<float>& row) {
    const int64_t chunks = i / kStatsCols + 1;
    double total = 0;
    for (int64_t c = 0; c < chunks; ++c)
        total += chunkMass[c];
    const double target = share * total;
    double recent = 0;
    for (int64_t c = chunks - 1; c >= 0; --c) {
        if (recent + chunkMass[c] < target && c > 0) {
            recent += chunkMass[c];
            continue;
        }
        const int64_t c0 = c * kStatsCols, cols = std::min(kStatsCols, i + 1 - c0);
        th.source->compute(kernels::MapKind::Attention, i, 1, c0, cols, row.data());
        for (int64_t j = c0 + cols - 1; j >= c0; --j) {
            recent += std::max(0.0f, row[j - c0]);
            if (recent >= target) return double(i - j);
        }
        return double(i);  // rounding left the sum short of the target: the whole prefix
    }
    return double(i);
}

void rowStatistics(const TraceHead& th, int64_t n, double share, int64_t binWidth,
                   HeadAttentionStats& out) {
    std::vector<float> tile(kStatsRows * kStatsCols), row(kStatsCols);
    std::vector<double> horizon(n);
    const int64_t maxChunks = (n + kStatsCols - 1) / kStatsCols;
    std::vector<double> chunkMass(kStatsRows * maxChunks);
    std::vector<double> mass(distanceBin(std::max<int64_t>(n - 1, 1)) + 1, 0.0);
    double entropy = 0, sink = 0, argmaxDistance = 0, distance = 0;
    for (int64_t r0 = 0; r0 < n; r0 += kStatsRows) {
        const int64_t rows = std::min(kStatsRows, n - r0);
        std::vector<double> rowEntropy(rows, 0.0), rowBest(rows, -1.0), rowDist(rows, 0.0);
        std::vector<int64_t> rowArg(rows, 0);
        std::fill(chunkMass.begin(), chunkMass.end(), 0.0);
        for (int64_t c0 = 0; c0 < r0 + rows; c0 += kStatsCols) {
            const int64_t cols = std::min(kStatsCols, r0 + rows - c0);
            th.source->compute(kernels::MapKind::Attention, r0, rows, c0, cols, tile.data());
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t i = r0 + r;
                for (int64_t c = 0; c < cols && c0 + c <= i; ++c) {
                    const double p = tile[r * cols + c];
                    if (p <= 0) continue;
                    const int64_t j = c0 + c;
                    rowEntropy[r] -= p * std::log(p);
                    mass[distanceBin(i - j)] += p;
                    rowDist[r] += p * double(i - j);
                    if (j == 0 && i >= 1) sink += p;
                    chunkMass[r * maxChunks + c0 / kStatsCols] += p;
                    if (p > rowBest[r]) rowBest[r] = p, rowArg[r] = j;
                }
            }
        }
        for (int64_t r = 0; r < rows; ++r) {
            entropy += rowEntropy[r];
            argmaxDistance += double(r0 + r - rowArg[r]);
            distance += rowDist[r];
            horizon[r0 + r] = rowHorizon(th, r0 + r, &chunkMass[r * maxChunks], share, row);
        }
    }
    out.horizon = profileOf(std::move(horizon), binWidth);
    for (auto& m : mass)
        m /= double(n);
    out.massByDistance = std::move(mass);
    out.meanEntropy = entropy / n;
    out.sinkMass = n > 1 ? sink / double(n - 1) : 0.0;
    out.meanArgmaxDistance = argmaxDistance / n;
    out.meanDistance = distance / n;
}

double rowNorm(const float* x, int64_t width) {
    double s = 0;
    for (int64_t d = 0; d < width; ++d)
        s += double(x[d]) * x[d];
    return std::sqrt(s);
}

/// Fraction of causal key blocks strictly left of each query block whose largest decay is below
/// the ACP threshold given the block's logit bound.
double negligibleBlocks(const TraceHead& th, int64_t n, const AttentionStatsOptions& o) {
    const float* q = th.factors.find("q");
    const float* k = th.factors.find("k");
    if (!q || !k) return -1;
    const int64_t dk = th.factors.width("q"), b = std::max(o.pruneBlock, 1);
    const int64_t blocks = (n + b - 1) / b;
    std::vector<double> qMax(blocks, 0.0), kMax(blocks, 0.0);
    for (int64_t t = 0; t < n; ++t) {
        qMax[t / b] = std::max(qMax[t / b], rowNorm(q + t * dk, dk));
        kMax[t / b] = std::max(kMax[t / b], rowNorm(k + t * dk, dk));
    }
    std::vector<float> tile(b * b);
    int64_t total = 0, negligible = 0;
    for (int64_t qb = 1; qb < blocks; ++qb)
        for (int64_t kb = 0; kb < qb; ++kb) {
            const double bound = std::abs(th.spec.scale) * qMax[qb] * kMax[kb];
            const double threshold = -(2 * bound + std::log(double(n))) + o.logTolerance;
            const int64_t rows = std::min(b, n - qb * b);
            th.source->compute(kernels::MapKind::Decay, qb * b, rows, kb * b, b, tile.data());
            const float largest = *std::max_element(tile.begin(), tile.begin() + rows * b);
            ++total;
            if (largest <= 0 || std::log(double(largest)) < threshold) ++negligible;
        }
    return total ? double(negligible) / total : 0.0;
}

}  // namespace

Result<std::vector<HeadAttentionStats>> attentionStats(const data::TraceReader& reader, int layer,
                                                       const AttentionStatsOptions& options) {
    const data::LayerInfo* info = reader.summary().layer(layer);
    if (!info) return Error{ErrorKind::Missing, "layer is not in the trace", reader.path(), {}};
    std::vector<int> heads = options.heads;
    if (heads.empty())
        for (int h = 0; h < info->header.nHeads; ++h)
            heads.push_back(h);
    const int64_t n = reader.summary().nTokens;
    std::vector<HeadAttentionStats> out(heads.size());
    std::vector<Error> errors;
    std::mutex errorMutex;
    kernels::parallelFor(static_cast<int64_t>(heads.size()), options.threads, [&](int64_t idx) {
        if (options.cancel && options.cancel->load()) return;
        auto th = loadTraceHead(reader, layer, heads[idx]);
        if (!th) {
            std::lock_guard lock(errorMutex);
            errors.push_back(th.error());
            return;
        }
        out[idx].head = heads[idx];
        rowStatistics(**th, n, options.massShare, options.binWidth, out[idx]);
        if ((*th)->source->hasMap(kernels::MapKind::Decay) && (*th)->spec.hasDecay)
            out[idx].negligibleBlockFraction = negligibleBlocks(**th, n, options);
    });
    if (!errors.empty()) return errors.front();
    if (options.cancel && options.cancel->load())
        return Error{ErrorKind::Cancelled, "cancelled", reader.path(), {}};
    return out;
}

}  // namespace gatescope::core
