#include "kernels/cpu/wall_scores.h"

#include <algorithm>
#include <cmath>

namespace gatescope::kernels {
namespace {

struct Operands {
    const WallHead& head;
    bool unit;  // all-ones rows over the gated channels
    int dim;    // channels summed over

    float a(int64_t i, int n) const { return unit ? 1.0f : head.q[i * head.qRow() + n]; }
    float b(int64_t j, int n) const { return unit ? 1.0f : head.k[j * head.kRow() + n]; }
    const float* p(int64_t t) const { return head.logDecayCumsum + t * head.pRow(); }
};

// A key block strictly before the query block: with A = P of its last key, both
// exp(P_i - A) and exp(A - P_j) are <= 1, and the block is one GEMM.
void anchoredBlock(const Operands& o, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float* s,
                   int64_t lds, WallScratch& sc) {
    const int dim = o.dim, gated = o.head.gatedChannels;
    const int64_t colsPad = padToVec(cols);
    const float* anchor = gated ? o.p(j0 + cols - 1) : nullptr;
    sc.rows.resize(rows * dim);
    sc.colsT.assign(dim * colsPad, 0.0f);
    sc.tile.assign(rows * colsPad, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
        const float* pi = gated ? o.p(i0 + r) : nullptr;
        for (int n = 0; n < dim; ++n)
            sc.rows[r * dim + n] =
                o.a(i0 + r, n) * (n < gated ? std::exp(pi[n] - anchor[n]) : 1.0f);
    }
    for (int64_t c = 0; c < cols; ++c) {
        const float* pj = gated ? o.p(j0 + c) : nullptr;
        for (int n = 0; n < dim; ++n)
            sc.colsT[n * colsPad + c] =
                o.b(j0 + c, n) * (n < gated ? std::exp(anchor[n] - pj[n]) : 1.0f);
    }
    gemmAccumulate(rows, colsPad, dim, sc.rows.data(), dim, sc.colsT.data(), colsPad,
                   sc.tile.data(), colsPad);
    for (int64_t r = 0; r < rows; ++r)
        std::copy(sc.tile.data() + r * colsPad, sc.tile.data() + r * colsPad + cols, s + r * lds);
}

// A block that meets the diagonal: every allowed pair directly, exp(P_i - P_j) <= 1.
void directBlock(const Operands& o, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float* s,
                 int64_t lds) {
    const int gated = o.head.gatedChannels;
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        const float* pi = gated ? o.p(i) : nullptr;
        for (int64_t c = 0; c < cols && j0 + c <= i; ++c) {
            const int64_t j = j0 + c;
            const float* pj = gated ? o.p(j) : nullptr;
            double sum = 0.0;
            for (int n = 0; n < o.dim; ++n) {
                const double w = n < gated ? std::exp(double(pi[n]) - double(pj[n])) : 1.0;
                sum += double(o.a(i, n)) * double(o.b(j, n)) * w;
            }
            s[r * lds + c] = static_cast<float>(sum);
        }
    }
}

}  // namespace

void wallScoreBlock(const WallHead& head, WallOperands operands, int64_t i0, int64_t rows,
                    int64_t j0, int64_t cols, float* s, int64_t lds, WallScratch& scratch) {
    const bool unit = operands == WallOperands::GatedOnes;
    const Operands o{head, unit, unit ? head.gatedChannels : head.dk};
    for (int64_t r = 0; r < rows; ++r)
        std::fill(s + r * lds, s + r * lds + cols, 0.0f);
    if (o.dim == 0) return;
    // Sub-blocks follow the absolute 64-grid on both axes and end at document boundaries, so only
    // pairs on the grid's diagonal take the direct path whatever the offsets of the request, and
    // a sub-block never holds two documents.
    const auto subEnd = [&](int64_t t, int64_t limit) {
        return std::min({limit, (t / kWallSubBlock + 1) * kWallSubBlock, head.documentEnd(t)});
    };
    for (int64_t bi = i0; bi < i0 + rows;) {
        const int64_t biEnd = subEnd(bi, i0 + rows);
        const int64_t document = head.documentStart(bi);
        for (int64_t bj = std::max(j0, document); bj < j0 + cols && bj < biEnd;) {
            const int64_t bjEnd = subEnd(bj, j0 + cols);
            float* out = s + (bi - i0) * lds + (bj - j0);
            if (bjEnd - 1 < bi)
                anchoredBlock(o, bi, biEnd - bi, bj, bjEnd - bj, out, lds, scratch);
            else
                directBlock(o, bi, biEnd - bi, bj, bjEnd - bj, out, lds);
            bj = bjEnd;
        }
        bi = biEnd;
    }
}

}  // namespace gatescope::kernels
