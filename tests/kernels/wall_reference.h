// Test-only dense float64 reference for Wall Attention, written straight from the formula in
// ../shared/specs/wall-attention-and-kernels.md §1.3 (natural-log gates):
//   s[i,j] = scale sum_n q[i,n] k[j,n] exp(sum_{tau=j+1..i} g[tau,n]),  A = softmax_j(s), j <= i.
// It materializes N x N on purpose; production code must not.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/wall_head.h"

namespace gatescope::test {

/// One head: q, k [n, dk], v [n, dv], natural-log gates g [n, dg] (<= 0) for the first dg
/// channels, and their cumulative sums P (float, as a trace stores them).
struct WallCase {
    int64_t n = 0;
    int dk = 0, dv = 0, dg = 0;
    double scale = 1.0;
    std::vector<float> q, k, v, g, P;

    kernels::WallHead view() const {
        kernels::WallHead h;
        h.n = n;
        h.dk = dk;
        h.dv = dv;
        h.gatedChannels = dg;
        h.q = q.data();
        h.k = k.data();
        h.v = v.data();
        h.logDecayCumsum = dg ? P.data() : nullptr;
        h.scale = static_cast<float>(scale);
        return h;
    }
};

/// The fork's soft clamp of a natural-log gate x <= 0 (spec §1.2): g_max (exp(x / g_max) - 1).
inline double softClamp(double x, double gMax) {
    return gMax * std::expm1(x / gMax);
}

/// Random non-zero inputs; gate logits bias + N(0, 1), log gates logsigmoid, soft-clamped when
/// gMax > 0.
inline WallCase randomWallCase(int64_t n, int dk, int dv, int dg, uint32_t seed,
                               double gateBias = 1.0, double gMax = 0.86) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    WallCase c;
    c.n = n;
    c.dk = dk;
    c.dv = dv;
    c.dg = dg;
    c.scale = 1.0 / std::sqrt(double(dk));
    for (auto [a, width] : {std::pair{&c.q, dk}, std::pair{&c.k, dk}, std::pair{&c.v, dv}})
        for (int64_t i = 0; i < n * width; ++i)
            a->push_back(static_cast<float>(1.3 * normal(rng)));
    std::vector<double> sum(dg, 0.0);
    for (int64_t t = 0; t < n; ++t) {
        for (int ch = 0; ch < dg; ++ch) {
            const double x = gateBias + normal(rng);
            double logGate = -std::log1p(std::exp(-x));
            if (gMax > 0) logGate = softClamp(logGate, gMax);
            c.g.push_back(static_cast<float>(logGate));
            sum[ch] += double(c.g.back());
            c.P.push_back(static_cast<float>(sum[ch]));
        }
    }
    return c;
}

/// Dense scores, probabilities, outputs and lse of one head, in float64.
struct WallDense {
    std::vector<double> logits;  ///< [n, n], -inf above the diagonal
    std::vector<double> probs;   ///< [n, n]
    std::vector<double> decay;   ///< [n, n] mean over gated channels of exp(P_i - P_j)
    std::vector<double> out;     ///< [n, dv]
    std::vector<double> lse;     ///< [n]
};

inline WallDense denseWall(const WallCase& c) {
    const int64_t n = c.n;
    WallDense r;
    r.logits.assign(n * n, -INFINITY);
    r.probs.assign(n * n, 0.0);
    r.decay.assign(n * n, 0.0);
    r.out.assign(n * c.dv, 0.0);
    r.lse.assign(n, 0.0);
    std::vector<double> prefix(n * c.dg, 0.0);
    for (int64_t t = 0; t < n; ++t)
        for (int ch = 0; ch < c.dg; ++ch)
            prefix[t * c.dg + ch] = (t ? prefix[(t - 1) * c.dg + ch] : 0.0) + c.g[t * c.dg + ch];
    for (int64_t i = 0; i < n; ++i) {
        double rowMax = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
            double s = 0.0, decay = 0.0;
            for (int ch = 0; ch < c.dk; ++ch) {
                // sum of g over tau = j+1..i, from float64 prefix sums of the float gates
                const double logRetained =
                    ch < c.dg ? prefix[i * c.dg + ch] - prefix[j * c.dg + ch] : 0.0;
                s += double(c.q[i * c.dk + ch]) * c.k[j * c.dk + ch] * std::exp(logRetained);
                if (ch < c.dg) decay += std::exp(logRetained);
            }
            r.logits[i * n + j] = c.scale * s;
            r.decay[i * n + j] = c.dg ? decay / c.dg : 1.0;
            rowMax = std::max(rowMax, r.logits[i * n + j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j <= i; ++j)
            sum += std::exp(r.logits[i * n + j] - rowMax);
        r.lse[i] = rowMax + std::log(sum);
        for (int64_t j = 0; j <= i; ++j) {
            const double p = std::exp(r.logits[i * n + j] - r.lse[i]);
            r.probs[i * n + j] = p;
            for (int d = 0; d < c.dv; ++d)
                r.out[i * c.dv + d] += p * c.v[j * c.dv + d];
        }
    }
    return r;
}

}  // namespace gatescope::test
