#include "kernels/cpu/power_state_norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/cancel.h"

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

/// Advances the two norm recurrences by token t, given the reads of S_{t-1} and z_{t-1} with
/// phi(k_t) decayed to t (crossS = g_t v_t.S_{t-1}phi(k_t), crossZ = g_t 1.z_{t-1}phi(k_t)) and the
/// token's own terms.
struct Recurrence {
    double s = 0.0, z = 0.0, previousG = 0.0;
    void step(const PowerHead& h, int64_t t, double crossS, double crossZ, double diagS,
              double diagZ, float* stateNorm, float* normalizerNorm) {
        const double gt = h.cumsum(t);
        const double gate2 = std::exp(2.0 * (gt - previousG));
        s = std::max(0.0, gate2 * s + 2.0 * crossS + diagS);
        z = std::max(0.0, gate2 * z + 2.0 * crossZ + diagZ);
        previousG = gt;
        stateNorm[t] = static_cast<float>(std::sqrt(s));
        if (normalizerNorm) normalizerNorm[t] = static_cast<float>(std::sqrt(z));
    }
};

void quadratic(const PowerHead& h, float* stateNorm, float* normalizerNorm, int64_t block) {
    const int dk = h.dk, dv = h.dv, p = h.degree;
    std::vector<double> kT(static_cast<size_t>(dk) * block), vT(static_cast<size_t>(dv) * block);
    std::vector<double> kk(block), vv(block), keyDecay(block);
    std::vector<double> crossS(block), crossZ(block), diagS(block), diagZ(block);
    Recurrence rec;
    for (int64_t t0 = 0; t0 < h.n; t0 += block) {
        const int64_t t1 = std::min(t0 + block, h.n), rows = t1 - t0;
        std::fill(crossS.begin(), crossS.end(), 0.0);
        std::fill(crossZ.begin(), crossZ.end(), 0.0);
        for (int64_t j0 = 0, visited = 0; j0 < t1; j0 += block) {
            if (visited++ % 16 == 0) throwIfCancelled();
            const int64_t cols = std::min(j0 + block, t1) - j0;
            const bool diagonal = j0 + cols > t0;
            transposeBlock(h.k, h.kRow(), dk, j0, cols, block, kT);
            transposeBlock(h.v, h.vRow(), dv, j0, cols, block, vT);
            // Off the diagonal every key precedes every query: e^{G_t - G_j} factors through the
            // block's last key r as e^{G_t - G_r} e^{G_r - G_j}, one exp per key and per query.
            const double gRef = h.cumsum(j0 + cols - 1);
            for (int64_t j = 0; j < cols && !diagonal; ++j)
                keyDecay[j] = std::exp(gRef - double(h.cumsum(j0 + j)));
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t t = t0 + r;
                const int64_t last = std::min(cols, t - j0 + 1);  // keys j <= t
                if (last <= 0) continue;
                rowTimesBlock(h.k + t * h.kRow(), kT, dk, last, block, kk.data());
                rowTimesBlock(h.v + t * h.vRow(), vT, dv, last, block, vv.data());
                const double gt = h.cumsum(t);
                double sumS = 0.0, sumZ = 0.0;
                if (!diagonal) {
                    for (int64_t j = 0; j < last; ++j) {
                        const double w = integerPower(kk[j], p) * keyDecay[j];
                        sumZ += w;
                        sumS += w * vv[j];
                    }
                    const double queryDecay = std::exp(gt - gRef);
                    sumS *= queryDecay;
                    sumZ *= queryDecay;
                } else {
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
                }
                crossS[r] += sumS;
                crossZ[r] += sumZ;
            }
        }
        for (int64_t r = 0; r < rows; ++r)
            rec.step(h, t0 + r, crossS[r], crossZ[r], diagS[r], diagZ[r], stateNorm,
                     normalizerNorm);
    }
}

int64_t spowDim(int dk) {
    return int64_t{dk} * (dk + 1) / 2;
}

void explicitStateP2(const PowerHead& h, float* stateNorm, float* normalizerNorm) {
    const int dk = h.dk, dv = h.dv;
    const int64_t big = spowDim(dk);
    std::vector<double> state(big * dv, 0.0), keyState(big, 0.0), phi(big), read(dv);
    Recurrence rec;
    for (int64_t t = 0; t < h.n; ++t) {
        if (t % 1024 == 0) throwIfCancelled();
        const float* k = h.k + t * h.kRow();
        const float* v = h.v + t * h.vRow();
        int64_t m = 0;
        double kk = 0.0, vv = 0.0;
        for (int a = 0; a < dk; ++a) {
            kk += double(k[a]) * k[a];
            phi[m++] = double(k[a]) * k[a];
            for (int b = a + 1; b < dk; ++b)
                phi[m++] = M_SQRT2 * k[a] * double(k[b]);
        }
        for (int e = 0; e < dv; ++e)
            vv += double(v[e]) * v[e];
        const double gate = std::exp(double(h.cumsum(t)) - rec.previousG);
        // One pass over S: read S_{t-1} phi(k_t), then S_t = g S_{t-1} + phi(k_t) v_t^T.
        std::fill(read.begin(), read.end(), 0.0);
        double readZ = 0.0;
        for (int64_t row = 0; row < big; ++row) {
            double* s = state.data() + row * dv;
            const double f = phi[row];
            for (int e = 0; e < dv; ++e) {
                read[e] += s[e] * f;
                s[e] = gate * s[e] + f * v[e];
            }
            readZ += keyState[row] * f;
            keyState[row] = gate * keyState[row] + f;
        }
        double crossS = 0.0;
        for (int e = 0; e < dv; ++e)
            crossS += read[e] * v[e];
        rec.step(h, t, gate * crossS, gate * readZ, vv * kk * kk, kk * kk, stateNorm,
                 normalizerNorm);
    }
}

}  // namespace

StateNormMethod chooseStateNormMethod(const PowerHead& head) {
    if (head.degree != 2) return StateNormMethod::Quadratic;
    // Per token: the explicit state costs about 2 D dv multiply-adds, the quadratic read about
    // n / 2 (dk + dv) plus an exp; the state is D dv doubles (capped at 64 MB).
    const double big = static_cast<double>(spowDim(head.dk));
    const double explicitCost = 2.0 * big * head.dv;
    const double quadraticCost = 0.5 * static_cast<double>(head.n) * (head.dk + head.dv + 8);
    const bool fits = big * head.dv <= 8.0 * 1024 * 1024;
    return fits && explicitCost < quadraticCost ? StateNormMethod::ExplicitState
                                                : StateNormMethod::Quadratic;
}

void powerStateNorm(const PowerHead& head, float* stateNorm, float* normalizerNorm,
                    StateNormMethod method, int blockSize) {
    if (method == StateNormMethod::Auto) method = chooseStateNormMethod(head);
    if (method == StateNormMethod::ExplicitState && head.degree == 2) {
        explicitStateP2(head, stateNorm, normalizerNorm);
    } else {
        quadratic(head, stateNorm, normalizerNorm, std::max(1, blockSize));
    }
}

}  // namespace gatescope::kernels
