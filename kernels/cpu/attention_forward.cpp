#include "kernels/cpu/attention_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/cancel.h"
#include "kernels/cpu/forward_block.h"
#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {
namespace detail {
namespace {

// Copies keys [j0, j0 + cols) of the head into the transposed block kT (dk x colsPad) and the
// value rows into v (colsPad x dvPad), zero-padded, so both GEMMs run on contiguous rows.
void packKeyBlock(const AdditiveDecayHead& head, int64_t j0, int64_t cols, ForwardScratch& sc) {
    const int64_t kRow = head.kRow(), vRow = head.vRow();
    for (int64_t j = 0; j < cols; ++j) {
        const float* key = head.k + (j0 + j) * kRow;
        for (int64_t d = 0; d < sc.dk; ++d)
            sc.kT[d * sc.colsPad + j] = key[d];
    }
    for (int64_t d = 0; d < sc.dk; ++d)
        std::fill(sc.kT.begin() + d * sc.colsPad + cols, sc.kT.begin() + (d + 1) * sc.colsPad,
                  0.0f);
    packValues(head.v, vRow, j0, cols, sc);
    for (int64_t j = 0; j < cols; ++j)
        sc.cKeys[j] = head.logDecayCumsum ? head.logDecayCumsum[j0 + j] : 0.0f;
    std::fill(sc.cKeys.begin() + cols, sc.cKeys.end(), 0.0f);
}

}  // namespace

ForwardScratch::ForwardScratch(int64_t block_, int dk_, int dv_)
    : block(block_), dk(dk_), dv(dv_), colsPad(padToVec(block_)), dvPad(padToVec(dv_)) {
    q.assign(block * dk, 0.0f);
    kT.assign(dk * colsPad, 0.0f);
    v.assign(colsPad * dvPad, 0.0f);  // padded columns stay zero: packKeyBlock never writes them
    s.assign(block * colsPad, 0.0f);
    acc.assign(block * dvPad, 0.0f);
    cKeys.assign(colsPad, 0.0f);
    m.assign(block, kNegInf);
    l.assign(block, 0.0f);
}

int64_t effectiveBlock(const ForwardOptions& options, int64_t n) {
    return std::clamp<int64_t>(options.blockSize, 1, std::min(std::max<int64_t>(n, 1), kMaxBlock));
}

int64_t queryBlockCount(int64_t n, int64_t block) {
    return n > 0 ? (n + block - 1) / block : 0;
}

void forwardQueryBlock(const AdditiveDecayHead& head, int64_t qb, float* out, float* lse,
                       const ForwardOptions& options, ForwardScratch& sc) {
    const int64_t block = sc.block;
    const int64_t i0 = qb * block;
    const int64_t rows = std::min(block, head.n - i0);
    const int64_t i1 = i0 + rows;
    const int64_t qRow = head.qRow();
    for (int64_t r = 0; r < rows; ++r)
        std::copy(head.q + (i0 + r) * qRow, head.q + (i0 + r) * qRow + sc.dk,
                  sc.q.begin() + r * sc.dk);
    resetQueryBlock(sc);

    // Key blocks are aligned to the block grid; the first one holds the first key of row i0
    // (blocks entirely left of the sliding window are never visited). A cancelled job stops
    // here within kCancelCheckBlocks key blocks (milliseconds), however long the row.
    int64_t visited = 0;
    for (int64_t j0 = head.firstKey(i0) / block * block; j0 < i1; j0 += block) {
        if (visited++ % kCancelCheckBlocks == 0) throwIfCancelled();
        const int64_t cols = std::min(block, head.n - j0);
        const int64_t colsPad = padToVec(cols);
        packKeyBlock(head, j0, cols, sc);
        std::fill(sc.s.begin(), sc.s.begin() + rows * sc.colsPad, 0.0f);
        gemmAccumulate(rows, colsPad, sc.dk, sc.q.data(), sc.dk, sc.kT.data(), sc.colsPad,
                       sc.s.data(), sc.colsPad);

        KeyBlockMask mask;
        mask.i0 = i0;
        mask.rows = rows;
        mask.j0 = j0;
        mask.cols = cols;
        mask.window = head.window;
        mask.scale = head.scale;
        mask.cQueries = head.logDecayCumsum;
        accumulateKeyBlock(mask, options.roundProbsToBf16, sc);
    }
    finishQueryBlock(i0, rows, sc, out, lse);
}

void accumulateKeyBlock(const KeyBlockMask& mask, bool roundProbsToBf16, ForwardScratch& sc) {
    const int64_t colsPad = padToVec(mask.cols);
    for (int64_t r = 0; r < mask.rows; ++r) {
        const int64_t i = mask.i0 + r;
        const int64_t lo = std::max<int64_t>(mask.firstKey(i) - mask.j0, 0);
        const int64_t hi = std::min(mask.cols, i - mask.j0 + 1);
        float* srow = sc.s.data() + r * sc.colsPad;
        const float ci = mask.cQueries ? mask.cQueries[i] : 0.0f;
        const float rowMax = biasMaskMax(srow, colsPad, mask.scale, ci, sc.cKeys.data(), lo, hi);
        if (rowMax == kNegInf) {
            // No allowed key for this row in this block: its probabilities are all zero.
            std::fill(srow, srow + colsPad, 0.0f);
            continue;
        }
        const float mNew = std::max(sc.m[r], rowMax);
        const float alpha = std::exp(sc.m[r] - mNew);  // 0 on the row's first block
        const float rowSum = expShiftSum(srow, colsPad, mNew, roundProbsToBf16);
        sc.l[r] = sc.l[r] * alpha + rowSum;
        if (alpha != 1.0f) scaleRow(sc.acc.data() + r * sc.dvPad, sc.dvPad, alpha);
        sc.m[r] = mNew;
    }
    gemmAccumulate(mask.rows, sc.dvPad, colsPad, sc.s.data(), sc.colsPad, sc.v.data(), sc.dvPad,
                   sc.acc.data(), sc.dvPad);
}

void packValues(const float* v, int64_t vRow, int64_t j0, int64_t cols, ForwardScratch& sc) {
    for (int64_t j = 0; j < cols; ++j) {
        const float* value = v + (j0 + j) * vRow;
        std::copy(value, value + sc.dv, sc.v.begin() + j * sc.dvPad);
    }
    std::fill(sc.v.begin() + cols * sc.dvPad, sc.v.end(), 0.0f);
}

void resetQueryBlock(ForwardScratch& sc) {
    std::fill(sc.m.begin(), sc.m.end(), kNegInf);
    std::fill(sc.l.begin(), sc.l.end(), 0.0f);
    std::fill(sc.acc.begin(), sc.acc.end(), 0.0f);
}

void finishQueryBlock(int64_t i0, int64_t rows, const ForwardScratch& sc, float* out, float* lse) {
    for (int64_t r = 0; r < rows; ++r) {
        const float inv = 1.0f / sc.l[r];
        const float* accRow = sc.acc.data() + r * sc.dvPad;
        float* outRow = out + (i0 + r) * sc.dv;
        for (int64_t d = 0; d < sc.dv; ++d)
            outRow[d] = accRow[d] * inv;
        lse[i0 + r] = sc.m[r] + std::log(sc.l[r]);
    }
}

}  // namespace detail

void attentionForward(const AdditiveDecayHead& head, float* out, float* lse,
                      const ForwardOptions& options) {
    if (head.n <= 0) return;
    const int64_t block = detail::effectiveBlock(options, head.n);
    detail::ForwardScratch scratch(block, head.dk, head.dv);
    const int64_t blocks = detail::queryBlockCount(head.n, block);
    for (int64_t qb = 0; qb < blocks; ++qb)
        detail::forwardQueryBlock(head, qb, out, lse, options, scratch);
}

}  // namespace gatescope::kernels
