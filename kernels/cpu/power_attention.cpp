#include "kernels/cpu/power_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/cancel.h"
#include "kernels/cpu/fast_math.h"
#include "kernels/cpu/forward_block.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {

namespace {

/// Scratch for one worker, reused across query and key blocks. Column counts are padded to kVec
/// for gemmAccumulate; padded cells stay zero.
struct Workspace {
    int64_t block = 0, blockPad = 0, dvPad = 0;
    std::vector<float> q;       // [block, dk]
    std::vector<float> kT;      // [dk, blockPad]
    std::vector<float> v;       // [blockPad, dvPad]
    std::vector<float> s;       // [block, blockPad]: dots, then weights
    std::vector<float> acc;     // [block, dvPad]
    std::vector<float> rowMax;  // [block]
    std::vector<double> rowSum;

    Workspace(int64_t blockSize, int dk, int dv)
        : block(blockSize), blockPad(padToVec(blockSize)), dvPad(padToVec(dv)) {
        q.resize(block * dk);
        kT.resize(dk * blockPad);
        v.assign(blockPad * dvPad, 0.0f);
        s.resize(block * blockPad);
        acc.resize(block * dvPad);
        rowMax.resize(block);
        rowSum.resize(block);
    }
};

void loadKeys(const PowerHead& h, int64_t j0, int64_t cols, Workspace& ws) {
    std::fill(ws.kT.begin(), ws.kT.end(), 0.0f);
    for (int64_t j = 0; j < cols; ++j) {
        const float* kr = h.k + (j0 + j) * h.kRow();
        for (int d = 0; d < h.dk; ++d)
            ws.kT[d * ws.blockPad + j] = kr[d];
        const float* vr = h.v + (j0 + j) * h.vRow();
        std::copy(vr, vr + h.dv, ws.v.begin() + j * ws.dvPad);
    }
    for (int64_t j = cols; j < ws.blockPad; ++j)
        std::fill(ws.v.begin() + j * ws.dvPad, ws.v.begin() + (j + 1) * ws.dvPad, 0.0f);
}

/// One query block [i0, i1) against every key block it sees, online normalization as the package
/// does it in log space: the running max of s, rescaling the running sum and P.V accumulator.
void queryBlock(const PowerHead& h, int64_t i0, int64_t i1, bool roundBf16, Workspace& ws,
                float* out, float* logNormalizer) {
    const int64_t rows = i1 - i0, block = ws.block;
    std::fill(ws.acc.begin(), ws.acc.end(), 0.0f);
    std::fill(ws.rowSum.begin(), ws.rowSum.end(), 0.0);
    std::fill(ws.rowMax.begin(), ws.rowMax.end(), kNegInf);
    for (int64_t r = 0; r < rows; ++r)
        std::copy(h.q + (i0 + r) * h.qRow(), h.q + (i0 + r) * h.qRow() + h.dk,
                  ws.q.begin() + r * h.dk);

    for (int64_t j0 = 0, visited = 0; j0 < i1; j0 += block) {
        if (visited++ % detail::kCancelCheckBlocks == 0) throwIfCancelled();
        const int64_t cols = std::min(j0 + block, i1) - j0;
        loadKeys(h, j0, cols, ws);
        std::fill(ws.s.begin(), ws.s.begin() + rows * ws.blockPad, 0.0f);
        gemmAccumulate(rows, ws.blockPad, h.dk, ws.q.data(), h.dk, ws.kT.data(), ws.blockPad,
                       ws.s.data(), ws.blockPad);
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = i0 + r;
            const int64_t last = std::min(cols, i - j0 + 1);  // causal: keys j <= i
            float* srow = ws.s.data() + r * ws.blockPad;
            if (last <= 0) {
                std::fill(srow, srow + ws.blockPad, 0.0f);
                continue;
            }
            const float gi = h.cumsum(i);
            float tileMax = kNegInf;
            for (int64_t j = 0; j < last; ++j) {
                srow[j] = h.logScore(srow[j]) + (gi - h.cumsum(j0 + j));
                tileMax = std::max(tileMax, srow[j]);
            }
            const float oldMax = ws.rowMax[r];
            const float newMax = std::max(oldMax, tileMax);
            if (newMax > oldMax && oldMax != kNegInf) {
                const float rescale = std::exp(oldMax - newMax);
                ws.rowSum[r] *= rescale;
                scaleRow(ws.acc.data() + r * ws.dvPad, ws.dvPad, rescale);
            }
            ws.rowMax[r] = newMax;
            double sum = 0.0;
            for (int64_t j = 0; j < last; ++j) {
                float w = std::exp(srow[j] - newMax);
                if (roundBf16) w = roundToBf16(w);
                srow[j] = w;
                sum += w;
            }
            std::fill(srow + last, srow + ws.blockPad, 0.0f);
            ws.rowSum[r] += sum;
        }
        gemmAccumulate(rows, ws.dvPad, ws.blockPad, ws.s.data(), ws.blockPad, ws.v.data(), ws.dvPad,
                       ws.acc.data(), ws.dvPad);
    }
    for (int64_t r = 0; r < rows; ++r) {
        const double l = ws.rowSum[r] + kPowerRowSumEps;
        const float inv = static_cast<float>(1.0 / l);
        const float* acc = ws.acc.data() + r * ws.dvPad;
        float* o = out + (i0 + r) * h.dv;
        for (int e = 0; e < h.dv; ++e)
            o[e] = acc[e] * inv;
        logNormalizer[i0 + r] = static_cast<float>(double(ws.rowMax[r]) + std::log(l));
    }
}

int64_t blockCount(int64_t n, int64_t block) {
    return (n + block - 1) / block;
}

}  // namespace

float PowerHead::logScore(float dot) const {
    return static_cast<float>(degree) * std::log(std::abs(scale * dot) + eps);
}

void powerAttentionForward(const PowerHead& head, float* out, float* logNormalizer,
                           const PowerForwardOptions& options) {
    const int64_t block = std::max(1, options.blockSize);
    Workspace ws(block, head.dk, head.dv);
    for (int64_t i0 = 0; i0 < head.n; i0 += block) {
        queryBlock(head, i0, std::min(i0 + block, head.n), options.roundProbsToBf16, ws, out,
                   logNormalizer);
    }
}

void powerAttentionForwardHeads(const PowerHead* heads, int count, float* const* outs,
                                float* const* logNormalizers, const PowerForwardOptions& options,
                                int threads) {
    if (count <= 0) return;
    const int64_t block = std::max(1, options.blockSize);
    int64_t blocks = 0;
    int dk = 0, dv = 0;
    for (int h = 0; h < count; ++h) {
        blocks = std::max(blocks, blockCount(heads[h].n, block));
        dk = std::max(dk, heads[h].dk);
        dv = std::max(dv, heads[h].dv);
    }
    // Work items (query block, head), latest (most expensive, causal) blocks first.
    const int64_t items = blocks * count;
    const int64_t grain = std::max<int64_t>(1, items / (8 * int64_t{resolveThreads(threads)}));
    parallelFor(
        0, items, grain,
        [&](int64_t begin, int64_t end) {
            Workspace ws(block, dk, dv);
            for (int64_t item = begin; item < end; ++item) {
                const int64_t b = blocks - 1 - item / count;
                const PowerHead& head = heads[item % count];
                const int64_t i0 = b * block;
                if (i0 >= head.n) continue;
                queryBlock(head, i0, std::min(i0 + block, head.n), options.roundProbsToBf16, ws,
                           outs[item % count], logNormalizers[item % count]);
            }
        },
        threads);
}

}  // namespace gatescope::kernels
