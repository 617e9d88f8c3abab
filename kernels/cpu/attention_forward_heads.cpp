// The multi-head entry point, and the (head, query block) scheduler every blockwise forward uses.
#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/forward_block.h"
#include "kernels/cpu/parallel_for.h"

namespace gatescope::kernels {

namespace detail {

void scheduleQueryBlocks(
    std::vector<QueryBlockItem> items, int threads,
    const std::function<void(const QueryBlockItem*, const QueryBlockItem*)>& run) {
    // Longest first, so that the last blocks to finish are short ones.
    std::stable_sort(
        items.begin(), items.end(),
        [](const QueryBlockItem& a, const QueryBlockItem& b) { return a.cost > b.cost; });
    // About eight chunks per worker keep the tail short.
    const int workers = resolveThreads(threads);
    const int64_t grain =
        std::max<int64_t>(1, static_cast<int64_t>(items.size()) / (int64_t{8} * workers));
    parallelFor(
        0, static_cast<int64_t>(items.size()), grain,
        [&](int64_t begin, int64_t end) { run(items.data() + begin, items.data() + end); },
        threads);
}

}  // namespace detail

void attentionForwardHeads(const AdditiveDecayHead* heads, int count, float* const* outs,
                           float* const* lses, const ForwardOptions& options, int threads) {
    std::vector<detail::QueryBlockItem> items;
    for (int h = 0; h < count; ++h) {
        const AdditiveDecayHead& head = heads[h];
        const int64_t block = detail::effectiveBlock(options, head.n);
        const int64_t blocks = detail::queryBlockCount(head.n, block);
        for (int64_t qb = 0; qb < blocks; ++qb) {
            const int64_t first = head.firstKey(qb * block) / block;
            items.push_back({h, qb, qb - first + 1});
        }
    }
    detail::scheduleQueryBlocks(
        std::move(items), threads,
        [&](const detail::QueryBlockItem* begin, const detail::QueryBlockItem* end) {
            std::unique_ptr<detail::ForwardScratch> scratch;
            for (const auto* item = begin; item != end; ++item) {
                const AdditiveDecayHead& head = heads[item->head];
                const int64_t block = detail::effectiveBlock(options, head.n);
                if (!scratch || scratch->block != block || scratch->dk != head.dk ||
                    scratch->dv != head.dv)
                    scratch = std::make_unique<detail::ForwardScratch>(block, head.dk, head.dv);
                detail::forwardQueryBlock(head, item->queryBlock, outs[item->head],
                                          lses[item->head], options, *scratch);
            }
        });
}

}  // namespace gatescope::kernels
