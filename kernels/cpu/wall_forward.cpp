#include "kernels/cpu/wall_forward.h"

#include <algorithm>
#include <memory>

#include "kernels/cpu/cancel.h"
#include "kernels/cpu/forward_block.h"
#include "kernels/cpu/wall_scores.h"

namespace gatescope::kernels {
namespace {

struct WallWorker {
    explicit WallWorker(const WallHead& head)
        : forward(kWallSubBlock, head.dk, head.dv), dk(head.dk), dv(head.dv) {}
    detail::ForwardScratch forward;  // its cKeys stay zero: Wall has no additive bias
    WallScratch scores;
    int dk, dv;
};

void wallQueryBlock(const WallHead& head, int64_t qb, float* out, float* lse,
                    const ForwardOptions& options, WallWorker& w) {
    auto& sc = w.forward;
    const int64_t i0 = qb * kWallSubBlock;
    const int64_t rows = std::min(kWallSubBlock, head.n - i0);
    detail::resetQueryBlock(sc);
    for (int64_t j0 = 0, visited = 0; j0 < i0 + rows; j0 += kWallSubBlock) {
        if (visited++ % detail::kCancelCheckBlocks == 0) throwIfCancelled();
        const int64_t cols = std::min(kWallSubBlock, head.n - j0);
        detail::packValues(head.v, head.vRow(), j0, cols, sc);
        std::fill(sc.s.begin(), sc.s.end(), 0.0f);
        wallScoreBlock(head, WallOperands::QueryKey, i0, rows, j0, cols, sc.s.data(), sc.colsPad,
                       w.scores);
        detail::KeyBlockMask mask;
        mask.i0 = i0;
        mask.rows = rows;
        mask.j0 = j0;
        mask.cols = cols;
        mask.scale = head.scale;
        detail::accumulateKeyBlock(mask, options.roundProbsToBf16, sc);
    }
    detail::finishQueryBlock(i0, rows, sc, out, lse);
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
