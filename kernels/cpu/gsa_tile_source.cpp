#include "kernels/cpu/gsa_tile_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/fast_math.h"
#include "kernels/cpu/gsa_chunk.h"
#include "kernels/cpu/tile_ops.h"

namespace gatescope::kernels {

namespace {

constexpr int64_t kRowBlock = 64;  // query rows sharing one anchor

/// One output region and the head, shared by the block routines.
struct Target {
    const GsaHead& head;
    bool withWrite;  // Attention (s_i weights the keys) or Decay (unit writes)
    int64_t row0, col0, ldOut;
    float* out;

    double g(int64_t t, int64_t j) const { return head.logForgetCumsum[t * head.slots + j]; }
    double w(int64_t i, int64_t j) const {
        return withWrite ? head.write[i * head.slots + j] : 1.0;
    }
    float& cell(int64_t t, int64_t i) const { return out[(t - row0) * ldOut + (i - col0)]; }
};

/// Rows [r0, r1) x keys [c0, c1) with every key i <= r0 <= t: with the anchor a = r0 both factors
/// of A = P' S', P'[t][j] = p_{t,j} exp(G_{t,j} - G_{a,j}) and S'[j][i] = s_{i,j}
/// exp(G_{a,j} - G_{i,j}), lie in [0, 1], so one GEMM gives the block.
void anchoredBlock(const Target& x, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                   std::vector<float>& pScaled, std::vector<float>& sScaled,
                   std::vector<float>& product) {
    const int64_t m = x.head.slots, rows = r1 - r0;
    for (int64_t t = r0; t < r1; ++t) {
        for (int64_t j = 0; j < m; ++j) {
            pScaled[(t - r0) * m + j] =
                x.head.slotProbs[t * m + j] * fastExp(static_cast<float>(x.g(t, j) - x.g(r0, j)));
        }
    }
    for (int64_t k0 = c0; k0 < c1; k0 += kTileColChunk) {
        const int64_t cols = std::min(kTileColChunk, c1 - k0), colsPad = padToVec(cols);
        for (int64_t j = 0; j < m; ++j) {
            float* row = &sScaled[j * colsPad];
            for (int64_t c = 0; c < colsPad; ++c) {
                const int64_t i = k0 + c;
                row[c] = c < cols ? static_cast<float>(x.w(i, j)) *
                                        fastExp(static_cast<float>(x.g(r0, j) - x.g(i, j)))
                                  : 0.0f;
            }
        }
        std::fill(product.begin(), product.begin() + rows * colsPad, 0.0f);
        gemmAccumulate(rows, colsPad, m, pScaled.data(), m, sScaled.data(), colsPad, product.data(),
                       colsPad);
        for (int64_t t = r0; t < r1; ++t) {
            std::copy_n(&product[(t - r0) * colsPad], cols, &x.cell(t, k0));
        }
    }
}

/// Rows [r0, r1) x keys [c0, c1) with r0 < c0 and c1 <= r1: the cells on and below the diagonal,
/// as sum_j p_{t,j} (exp(G_{t,j} - G_{a,j})) (s_{i,j} exp(G_{a,j} - G_{i,j})) in double, a = r0.
void diagonalBlock(const Target& x, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                   std::vector<double>& ePos, std::vector<double>& eNeg) {
    const int64_t m = x.head.slots;
    std::vector<char> direct(m, 0);
    for (int64_t j = 0; j < m; ++j) {
        for (int64_t i = c0; i < c1; ++i) {
            if (x.g(r0, j) - x.g(i, j) > kFactorizeLimit) direct[j] = 1;
        }
    }
    for (int64_t t = r0; t < r1; ++t)
        for (int64_t j = 0; j < m; ++j)
            ePos[(t - r0) * m + j] = std::exp(x.g(t, j) - x.g(r0, j));
    for (int64_t i = c0; i < c1; ++i)
        for (int64_t j = 0; j < m; ++j)
            eNeg[(i - c0) * m + j] = direct[j] ? 0.0 : x.w(i, j) * std::exp(x.g(r0, j) - x.g(i, j));
    for (int64_t t = std::max(r0, c0); t < r1; ++t) {
        const float* p = x.head.slotProbs + t * m;
        const double* pos = &ePos[(t - r0) * m];
        for (int64_t i = c0; i < std::min(c1, t + 1); ++i) {
            const double* neg = &eNeg[(i - c0) * m];
            double acc = 0.0;
            for (int64_t j = 0; j < m; ++j) {
                acc += direct[j] ? p[j] * x.w(i, j) * std::exp(x.g(t, j) - x.g(i, j))
                                 : p[j] * pos[j] * neg[j];
            }
            x.cell(t, i) = static_cast<float>(acc);
        }
    }
}

}  // namespace

bool hasGsaMap(const GsaHead& head, MapKind kind) {
    const bool base =
        head.slots > 0 && head.slotProbs != nullptr && head.logForgetCumsum != nullptr;
    switch (kind) {
        case MapKind::Attention:
            return base && head.write != nullptr;
        case MapKind::Decay:
            return base;
        case MapKind::Logit:
            return false;
    }
    return false;
}

void computeGsaTile(const GsaHead& head, MapKind kind, int64_t row0, int64_t rows, int64_t col0,
                    int64_t cols, float* out) {
    if (rows <= 0 || cols <= 0) return;
    if (!hasGsaMap(head, kind)) {
        std::fill(out, out + rows * cols, std::numeric_limits<float>::quiet_NaN());
        return;
    }
    std::fill(out, out + rows * cols, 0.0f);
    const int64_t ra = std::max<int64_t>(row0, 0), rb = std::min(row0 + rows, head.n);
    if (ra >= rb) return;
    const int64_t ca = std::max<int64_t>(col0, 0), cb = std::min(col0 + cols, rb);
    if (ca >= cb) return;

    const int64_t m = head.slots;
    const Target target{head, kind == MapKind::Attention, row0, col0, cols, out};
    std::vector<float> pScaled(kRowBlock * m), sScaled(m * padToVec(kTileColChunk));
    std::vector<float> product(kRowBlock * padToVec(kTileColChunk));
    std::vector<double> ePos(kRowBlock * m), eNeg(kRowBlock * m);
    for (int64_t r0 = ra; r0 < rb; r0 += kRowBlock) {
        const int64_t r1 = std::min(r0 + kRowBlock, rb);
        const int64_t leftEnd = std::min(cb, r0 + 1);
        if (ca < leftEnd) anchoredBlock(target, r0, r1, ca, leftEnd, pScaled, sScaled, product);
        const int64_t d0 = std::max(ca, r0 + 1), d1 = std::min(cb, r1);
        if (d0 < d1) diagonalBlock(target, r0, r1, d0, d1, ePos, eNeg);
    }
}

}  // namespace gatescope::kernels
