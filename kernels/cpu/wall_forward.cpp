#include "kernels/cpu/wall_forward.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "kernels/cpu/cancel.h"
#include "kernels/cpu/forward_block.h"
#include "kernels/cpu/wall_scores.h"

namespace gatescope::kernels {
namespace {

struct WallWorker {
    explicit WallWorker(const WallHead& head)
        : forward(kWallSubBlock, head.dk, head.dv), dk(head.dk), dv(head.dv) {}
    detail::ForwardScratch forward;  // cKeys: the key block's scalar-gate cumsum (zeros without)
    WallScratch scores;
    int64_t firstKeys[kWallSubBlock] = {};
    int dk, dv;
};

// out = acc / (l + exp(sink - m)) and lse = log(exp(m) l + exp(sink)), formed around
// M = max(m, sink) so that neither a large sink nor a large row maximum overflows. Without a
// sink (-inf) this is exactly acc / l and m + log l.
void finishWithSink(int64_t i0, int64_t rows, float sink, const detail::ForwardScratch& sc,
                    float* out, float* lse) {
    for (int64_t r = 0; r < rows; ++r) {
        const float m = sc.m[r], top = std::max(m, sink);
        const float keep = std::exp(m - top);
        const float l = sc.l[r] * keep + std::exp(sink - top);
        const float inv = keep / l;
        const float* accRow = sc.acc.data() + r * sc.dvPad;
        float* outRow = out + (i0 + r) * sc.dv;
        for (int64_t d = 0; d < sc.dv; ++d)
            outRow[d] = accRow[d] * inv;
        lse[i0 + r] = top + std::log(l);
    }
}

void wallQueryBlock(const WallHead& head, int64_t qb, float* out, float* lse,
                    const ForwardOptions& options, WallWorker& w) {
    auto& sc = w.forward;
    const int64_t i0 = qb * kWallSubBlock;
    const int64_t rows = std::min(kWallSubBlock, head.n - i0);
    for (int64_t r = 0; r < rows; ++r)
        w.firstKeys[r] = head.firstKey(i0 + r);
    detail::resetQueryBlock(sc);
    // firstKey never decreases with i: key blocks before row i0's first key hold nothing.
    for (int64_t j0 = w.firstKeys[0] / kWallSubBlock * kWallSubBlock, visited = 0; j0 < i0 + rows;
         j0 += kWallSubBlock) {
        if (visited++ % detail::kCancelCheckBlocks == 0) throwIfCancelled();
        const int64_t cols = std::min(kWallSubBlock, head.n - j0);
        detail::packValues(head.v, head.vRow(), j0, cols, sc);
        std::fill(sc.s.begin(), sc.s.end(), 0.0f);
        wallScoreBlock(head, WallOperands::QueryKey, i0, rows, j0, cols, sc.s.data(), sc.colsPad,
                       w.scores);
        if (head.scalarDecayCumsum)
            std::copy(head.scalarDecayCumsum + j0, head.scalarDecayCumsum + j0 + cols,
                      sc.cKeys.begin());
        detail::KeyBlockMask mask;
        mask.i0 = i0;
        mask.rows = rows;
        mask.j0 = j0;
        mask.cols = cols;
        mask.scale = head.scale;
        mask.cQueries = head.scalarDecayCumsum;
        mask.firstKeys = w.firstKeys;
        detail::accumulateKeyBlock(mask, options.roundProbsToBf16, sc);
    }
    finishWithSink(i0, rows, head.sinkBias, sc, out, lse);
}

int64_t blockCount(const WallHead& head) {
    return (head.n + kWallSubBlock - 1) / kWallSubBlock;
}

}  // namespace

void wallForward(const WallHead& head, float* out, float* lse, const ForwardOptions& options) {
    if (head.n <= 0) return;
    WallWorker worker(head);
    for (int64_t qb = 0; qb < blockCount(head); ++qb)
        wallQueryBlock(head, qb, out, lse, options, worker);
}

void wallForwardHeads(const WallHead* heads, int count, float* const* outs, float* const* lses,
                      const ForwardOptions& options, int threads) {
    std::vector<detail::QueryBlockItem> items;
    for (int h = 0; h < count; ++h)
        for (int64_t qb = 0; qb < blockCount(heads[h]); ++qb)
            items.push_back({h, qb, qb + 1});
    detail::scheduleQueryBlocks(
        std::move(items), threads,
        [&](const detail::QueryBlockItem* begin, const detail::QueryBlockItem* end) {
            std::unique_ptr<WallWorker> worker;
            for (const auto* item = begin; item != end; ++item) {
                const WallHead& head = heads[item->head];
                if (!worker || worker->dk != head.dk || worker->dv != head.dv)
                    worker = std::make_unique<WallWorker>(head);
                wallQueryBlock(head, item->queryBlock, outs[item->head], lses[item->head], options,
                               *worker);
            }
        });
}

}  // namespace gatescope::kernels
