#include "kernels/cpu/power_state_norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gatescope::kernels {

namespace {

double integerPower(double x, int p) {
    double result = 1.0;
    for (int i = 0; i < p; ++i)
        result *= x;
    return result;
}

/// Copies rows [j0, j0 + cols) of a row-major matrix into a [dim, block] float64 transpose.
void transposeBlock(const float* base, int64_t stride, int dim, int64_t j0, int64_t cols,
                    int64_t block, std::vector<double>& out) {
    for (int64_t j = 0; j < cols; ++j) {
        const float* row = base + (j0 + j) * stride;
        for (int d = 0; d < dim; ++d)
            out[d * block + j] = row[d];
    }
}

/// dots[j] = a . bT[:, j] for j < cols, in float64.
void rowTimesBlock(const float* a, const std::vector<double>& bT, int dim, int64_t cols,
                   int64_t block, double* dots) {
    std::fill(dots, dots + cols, 0.0);
    for (int d = 0; d < dim; ++d) {
        const double ad = a[d];
        const double* bd = bT.data() + d * block;
        for (int64_t j = 0; j < cols; ++j)
            dots[j] += ad * bd[j];
    }
}

}  // namespace

void powerStateNorm(const PowerHead& h, float* stateNorm, float* normalizerNorm, int blockSize) {
    const int64_t block = std::max(1, blockSize);
    const int dk = h.dk, dv = h.dv, p = h.degree;
    std::vector<double> kT(static_cast<size_t>(dk) * block), vT(static_cast<size_t>(dv) * block);
    std::vector<double> kk(block), vv(block);
    std::vector<double> crossS(block), crossZ(block), diagS(block), diagZ(block);
    double previousS = 0.0, previousZ = 0.0, previousG = 0.0;

    for (int64_t t0 = 0; t0 < h.n; t0 += block) {
        const int64_t t1 = std::min(t0 + block, h.n), rows = t1 - t0;
        std::fill(crossS.begin(), crossS.end(), 0.0);
        std::fill(crossZ.begin(), crossZ.end(), 0.0);
        for (int64_t j0 = 0; j0 < t1; j0 += block) {
            const int64_t cols = std::min(j0 + block, t1) - j0;
            transposeBlock(h.k, h.kRow(), dk, j0, cols, block, kT);
            transposeBlock(h.v, h.vRow(), dv, j0, cols, block, vT);
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t t = t0 + r;
                const int64_t last = std::min(cols, t - j0 + 1);  // keys j <= t
                if (last <= 0) continue;
                rowTimesBlock(h.k + t * h.kRow(), kT, dk, last, block, kk.data());
                rowTimesBlock(h.v + t * h.vRow(), vT, dv, last, block, vv.data());
                const double gt = h.cumsum(t);
                double sumS = 0.0, sumZ = 0.0;
                for (int64_t j = 0; j < last; ++j) {
                    const double w = integerPower(kk[j], p);
                    if (j0 + j == t) {
                        diagZ[r] = w;
                        diagS[r] = w * vv[j];
                        continue;
                    }
                    const double decayed = w * std::exp(gt - double(h.cumsum(j0 + j)));
                    sumZ += decayed;
                    sumS += decayed * vv[j];
                }
                crossS[r] += sumS;
                crossZ[r] += sumZ;
            }
        }
        // The per-token recurrence, in time order.
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t t = t0 + r;
            const double gt = h.cumsum(t);
            const double gate2 = std::exp(2.0 * (gt - previousG));
            previousS = std::max(0.0, gate2 * previousS + 2.0 * crossS[r] + diagS[r]);
            previousZ = std::max(0.0, gate2 * previousZ + 2.0 * crossZ[r] + diagZ[r]);
            previousG = gt;
            stateNorm[t] = static_cast<float>(std::sqrt(previousS));
            if (normalizerNorm) normalizerNorm[t] = static_cast<float>(std::sqrt(previousZ));
        }
    }
}

}  // namespace gatescope::kernels
