// Test-only dense float64 references for power attention, written straight from the formulas in
// ../shared/specs/power-attention.md (§1.2, §1.4, §7.5). They materialize N x N (or the D x dv
// state) on purpose; production code must not.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace gatescope::test {

/// One head's inputs, row-major: q, k [n, dk], v [n, dv], G [n] (empty: ungated).
struct PowerCase {
    int64_t n = 0;
    int dk = 0, dv = 0, p = 2;
    double scale = 1.0;
    double eps = 1e-7;
    std::vector<float> q, k, v, g;

    double cumsum(int64_t i) const { return g.empty() ? 0.0 : g[i]; }
    double dot(const std::vector<float>& a, int64_t i, const std::vector<float>& b, int64_t j,
               int dim) const {
        double s = 0;
        for (int d = 0; d < dim; ++d)
            s += double(a[i * dim + d]) * double(b[j * dim + d]);
        return s;
    }
};

/// Random non-zero inputs: q, k, v ~ N(0, spread^2), log g = logsigmoid(bias + N(0, 1)).
inline PowerCase randomPowerCase(int64_t n, int dk, int dv, int p, bool gated, uint32_t seed,
                                 double spread = 1.0, double gateBias = 2.0) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, static_cast<float>(spread));
    std::normal_distribution<double> unit(0.0, 1.0);
    PowerCase c;
    c.n = n;
    c.dk = dk;
    c.dv = dv;
    c.p = p;
    c.scale = 1.0 / std::sqrt(double(dk));
    c.q.resize(n * dk);
    c.k.resize(n * dk);
    c.v.resize(n * dv);
    for (auto* a : {&c.q, &c.k, &c.v})
        for (auto& x : *a)
            x = normal(rng);
    if (gated) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double x = gateBias + unit(rng);
            sum += -std::log1p(std::exp(-x));  // logsigmoid
            c.g.push_back(static_cast<float>(sum));
        }
    }
    return c;
}

/// w[i,j] = (|scale q_i.k_j| + eps)^p exp(G_i - G_j) for j <= i. The package divides by the row
/// sum plus 1e-6 times the row's largest weight (its 1e-6 is added after dividing by the max).
struct PowerDense {
    std::vector<double> probs;          // [n, n]
    std::vector<double> out;            // [n, dv]
    std::vector<double> logNormalizer;  // [n]
};

inline PowerDense densePowerAttention(const PowerCase& c) {
    PowerDense r;
    r.probs.assign(c.n * c.n, 0.0);
    r.out.assign(c.n * c.dv, 0.0);
    r.logNormalizer.assign(c.n, 0.0);
    std::vector<double> w(c.n);
    for (int64_t i = 0; i < c.n; ++i) {
        double sum = 0, largest = 0;
        for (int64_t j = 0; j <= i; ++j) {
            const double base = std::abs(c.scale * c.dot(c.q, i, c.k, j, c.dk)) + c.eps;
            w[j] = std::pow(base, c.p) * std::exp(c.cumsum(i) - c.cumsum(j));
            sum += w[j];
            largest = std::max(largest, w[j]);
        }
        const double z = sum + 1e-6 * largest;
        r.logNormalizer[i] = std::log(z);
        for (int64_t j = 0; j <= i; ++j) {
            r.probs[i * c.n + j] = w[j] / z;
            for (int e = 0; e < c.dv; ++e)
                r.out[i * c.dv + e] += w[j] / z * c.v[j * c.dv + e];
        }
    }
    return r;
}

/// |S_t|_F and |z_t| from the closed form: |S_t|^2 = sum_{j,l<=t} b_tj b_tl (v_j.v_l)(k_j.k_l)^p,
/// b_tj = exp(G_t - G_j). O(n^3).
inline void denseStateNorms(const PowerCase& c, std::vector<double>& state,
                            std::vector<double>& normalizer) {
    state.assign(c.n, 0.0);
    normalizer.assign(c.n, 0.0);
    for (int64_t t = 0; t < c.n; ++t) {
        double s = 0, z = 0;
        for (int64_t j = 0; j <= t; ++j) {
            for (int64_t l = 0; l <= t; ++l) {
                const double b = std::exp(2 * c.cumsum(t) - c.cumsum(j) - c.cumsum(l));
                const double kk = std::pow(c.dot(c.k, j, c.k, l, c.dk), c.p);
                z += b * kk;
                s += b * kk * c.dot(c.v, j, c.v, l, c.dv);
            }
        }
        state[t] = std::sqrt(s);
        normalizer[t] = std::sqrt(z);
    }
}

/// The p = 2 recurrent state itself, S_t = g_t S_{t-1} + v_t phi(k_t)^T with the symmetric power
/// embedding phi(k) = [k_a k_b * (a == b ? 1 : sqrt 2)]_{a <= b}, materialized; returns |S_t|_F.
inline std::vector<double> explicitStateNormP2(const PowerCase& c) {
    const int d = c.dk;
    const int big = d * (d + 1) / 2;
    std::vector<double> state(static_cast<size_t>(big) * c.dv, 0.0), phi(big), norms(c.n);
    double previousG = 0;
    for (int64_t t = 0; t < c.n; ++t) {
        const double gate = std::exp(c.cumsum(t) - previousG);
        previousG = c.cumsum(t);
        int idx = 0;
        for (int a = 0; a < d; ++a)
            for (int b = a; b < d; ++b)
                phi[idx++] =
                    double(c.k[t * d + a]) * c.k[t * d + b] * (a == b ? 1.0 : std::sqrt(2.0));
        double sq = 0;
        for (int m = 0; m < big; ++m) {
            for (int e = 0; e < c.dv; ++e) {
                double& s = state[m * c.dv + e];
                s = gate * s + phi[m] * c.v[t * c.dv + e];
                sq += s * s;
            }
        }
        norms[t] = std::sqrt(sq);
    }
    return norms;
}

/// max |a - b| / max |b| over the whole array.
template <class A, class B>
double maxRelative(const A& actual, const B& expected) {
    double diff = 0, ref = 1e-30;
    for (size_t i = 0; i < expected.size(); ++i) {
        diff = std::max(diff, std::abs(double(actual[i]) - double(expected[i])));
        ref = std::max(ref, std::abs(double(expected[i])));
    }
    return diff / ref;
}

}  // namespace gatescope::test
