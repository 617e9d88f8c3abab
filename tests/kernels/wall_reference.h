// Test-only dense float64 reference for Wall Attention, written straight from the formula in
// ../shared/specs/wall-attention-and-kernels.md §1.3 (natural-log gates) and the options of the
// authors' eager reference (wall_attn/reference.py: window_size, sink_bias, g_scalar,
// cu_seqlens):
//   s[i,j] = scale sum_n q[i,n] k[j,n] exp(sum_{tau=j+1..i} g[tau,n]) + sum_{tau=j+1..i} gs[tau]
//   allowed: j <= i, i - j < window (when set), same document
//   lse[i] = log(sum_{allowed j} exp(s[i,j]) + exp(sink)),  A = exp(s - lse) on allowed pairs.
// It materializes N x N on purpose; production code must not.
#pragma once

#include <algorithm>
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
    int64_t window = 0;           ///< 0: all earlier keys
    double sink = -INFINITY;      ///< natural-log sink logit; -inf: none
    std::vector<float> gs, c;     ///< scalar gate and its per-document cumsum (empty: none)
    std::vector<int64_t> starts;  ///< document starts (empty: one document)

    int64_t document(int64_t t) const {
        int64_t d = 0;
        for (std::size_t s = 0; s < starts.size(); ++s)
            if (starts[s] <= t) d = static_cast<int64_t>(s);
        return d;
    }

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
        h.window = window;
        h.sinkBias = static_cast<float>(sink);
        h.scalarDecayCumsum = c.empty() ? nullptr : c.data();
        h.documentStarts = starts.empty() ? nullptr : starts.data();
        h.documents = static_cast<int64_t>(starts.size());
        return h;
    }
};

/// The options of the authors' reference beyond the per-channel gates.
struct WallCaseOptions {
    int64_t window = 0;
    double sink = -INFINITY;
    bool scalarGate = false;
    double scalarBias = 2.0;      ///< scalar gate logits bias + N(0, 1)
    std::vector<int64_t> starts;  ///< document starts, first 0 (empty: one document)
};

/// The fork's soft clamp of a natural-log gate x <= 0 (spec §1.2): g_max (exp(x / g_max) - 1).
inline double softClamp(double x, double gMax) {
    return gMax * std::expm1(x / gMax);
}

/// Random non-zero inputs; gate logits bias + N(0, 1), log gates logsigmoid, soft-clamped when
/// gMax > 0; P (and c) restart at each document start, as the official kernel's cumsum does.
inline WallCase randomWallCase(int64_t n, int dk, int dv, int dg, uint32_t seed,
                               double gateBias = 1.0, double gMax = 0.86,
                               const WallCaseOptions& options = {}) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    WallCase c;
    c.n = n;
    c.dk = dk;
    c.dv = dv;
    c.dg = dg;
    c.scale = 1.0 / std::sqrt(double(dk));
    c.window = options.window;
    c.sink = options.sink;
    c.starts = options.starts;
    for (auto [a, width] : {std::pair{&c.q, dk}, std::pair{&c.k, dk}, std::pair{&c.v, dv}})
        for (int64_t i = 0; i < n * width; ++i)
            a->push_back(static_cast<float>(1.3 * normal(rng)));
    std::vector<double> sum(dg, 0.0);
    double scalarSum = 0.0;
    for (int64_t t = 0; t < n; ++t) {
        if (std::find(c.starts.begin(), c.starts.end(), t) != c.starts.end()) {
            std::fill(sum.begin(), sum.end(), 0.0);
            scalarSum = 0.0;
        }
        for (int ch = 0; ch < dg; ++ch) {
            const double x = gateBias + normal(rng);
            double logGate = -std::log1p(std::exp(-x));
            if (gMax > 0) logGate = softClamp(logGate, gMax);
            c.g.push_back(static_cast<float>(logGate));
            sum[ch] += double(c.g.back());
            c.P.push_back(static_cast<float>(sum[ch]));
        }
        if (options.scalarGate) {
            const double x = options.scalarBias + normal(rng);
            c.gs.push_back(static_cast<float>(-std::log1p(std::exp(-x))));
            scalarSum += double(c.gs.back());
            c.c.push_back(static_cast<float>(scalarSum));
        }
    }
    return c;
}

/// Dense scores, probabilities, outputs and lse of one head, in float64.
struct WallDense {
    std::vector<double> logits;  ///< [n, n], -inf on disallowed pairs
    std::vector<double> probs;   ///< [n, n], 0 on disallowed pairs
    /// [n, n] mean over gated channels of exp(P_i - P_j) (1 without), times exp(c_i - c_j); 0 on
    /// disallowed pairs
    std::vector<double> decay;
    std::vector<double> out;  ///< [n, dv]
    std::vector<double> lse;  ///< [n]
};

inline WallDense denseWall(const WallCase& c) {
    const int64_t n = c.n;
    WallDense r;
    r.logits.assign(n * n, -INFINITY);
    r.probs.assign(n * n, 0.0);
    r.decay.assign(n * n, 0.0);
    r.out.assign(n * c.dv, 0.0);
    r.lse.assign(n, 0.0);
    // Float64 prefix sums of the float gates over the whole sequence: only differences inside a
    // document are used, which are the sums over tau = j+1..i.
    std::vector<double> prefix(n * c.dg, 0.0), scalar(n, 0.0);
    for (int64_t t = 0; t < n; ++t) {
        for (int ch = 0; ch < c.dg; ++ch)
            prefix[t * c.dg + ch] = (t ? prefix[(t - 1) * c.dg + ch] : 0.0) + c.g[t * c.dg + ch];
        if (!c.gs.empty()) scalar[t] = (t ? scalar[t - 1] : 0.0) + c.gs[t];
    }
    const auto allowed = [&](int64_t i, int64_t j) {
        return j <= i && (c.window == 0 || i - j < c.window) && c.document(i) == c.document(j);
    };
    for (int64_t i = 0; i < n; ++i) {
        double rowMax = c.sink;
        for (int64_t j = 0; j <= i; ++j) {
            if (!allowed(i, j)) continue;
            double s = 0.0, decay = 0.0;
            for (int ch = 0; ch < c.dk; ++ch) {
                const double logRetained =
                    ch < c.dg ? prefix[i * c.dg + ch] - prefix[j * c.dg + ch] : 0.0;
                s += double(c.q[i * c.dk + ch]) * c.k[j * c.dk + ch] * std::exp(logRetained);
                if (ch < c.dg) decay += std::exp(logRetained);
            }
            const double bias = scalar[i] - scalar[j];  // 0 without the scalar gate
            r.logits[i * n + j] = c.scale * s + bias;
            r.decay[i * n + j] = (c.dg ? decay / c.dg : 1.0) * std::exp(bias);
            rowMax = std::max(rowMax, r.logits[i * n + j]);
        }
        double sum = std::exp(c.sink - rowMax);  // the sink: denominator only
        for (int64_t j = 0; j <= i; ++j)
            if (allowed(i, j)) sum += std::exp(r.logits[i * n + j] - rowMax);
        r.lse[i] = rowMax + std::log(sum);
        for (int64_t j = 0; j <= i; ++j) {
            if (!allowed(i, j)) continue;
            const double p = std::exp(r.logits[i * n + j] - r.lse[i]);
            r.probs[i * n + j] = p;
            for (int d = 0; d < c.dv; ++d)
                r.out[i * c.dv + d] += p * c.v[j * c.dv + d];
        }
    }
    return r;
}

}  // namespace gatescope::test
