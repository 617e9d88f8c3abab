// Test support: Gated Slot Attention in float64 straight from the paper (Eq. 6, the per-token slot
// memory recurrence, as in fla's naive_recurrent_gsa) and the token-level map it implies
// (A[t,i] = sum_j p[t,j] s[i,j] exp(G[t,j] - G[i,j])), dense. For small sizes only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace gatescope::test {

/// Inputs in the kernel layout: q [H, n, dk], k [Hkv, n, dk], v [Hkv, n, dv], logForget and write
/// [Hkv, n, m].
struct GsaProblem {
    int64_t n = 0;
    int heads = 1, kvHeads = 1, dk = 1, dv = 1, slots = 1;
    float scale = 1.0f;
    std::vector<float> q, k, v, logForget, write;

    /// Random non-zero inputs; log alpha = logsigmoid(x) / tau with x ~ N(gateMean, 2).
    static GsaProblem random(int64_t n, int heads, int kvHeads, int dk, int dv, int slots,
                             unsigned seed, double gateMean = 0.0, double tau = 8.0) {
        GsaProblem p;
        p.n = n;
        p.heads = heads;
        p.kvHeads = kvHeads;
        p.dk = dk;
        p.dv = dv;
        p.slots = slots;
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        auto fill = [&](std::vector<float>& x, int64_t size) {
            x.resize(size);
            for (auto& e : x)
                e = normal(rng);
        };
        fill(p.q, heads * n * dk);
        fill(p.k, kvHeads * n * dk);
        fill(p.v, kvHeads * n * dv);
        p.logForget.resize(kvHeads * n * slots);
        p.write.resize(p.logForget.size());
        for (std::size_t i = 0; i < p.logForget.size(); ++i) {
            const double x = gateMean + 2.0 * normal(rng);
            const double logSigmoid = -std::log1p(std::exp(-x));
            p.logForget[i] = static_cast<float>(logSigmoid / tau);
            p.write[i] = static_cast<float>(1.0 - std::exp(double(p.logForget[i])));
        }
        return p;
    }
};

struct GsaReference {
    std::vector<double> out;     ///< [H, n, dv]
    std::vector<double> scores;  ///< [H, n, m]
    std::vector<double> probs;   ///< [H, n, m]
    std::vector<double> lse;     ///< [H, n]
    std::vector<double> cumsum;  ///< [Hkv, n, m]
    std::vector<double> stateK;  ///< [Hkv, n, m, dk]: K~ after each token
    std::vector<double> stateV;  ///< [Hkv, n, m, dv]
};

/// The recurrence: K~_t = diag(a_t) K~_{t-1} + s_t k_t^T, o'_t = scale K~_t q_t, p_t =
/// softmax(o'_t), V~_t = diag(a_t) V~_{t-1} + s_t v_t^T, o_t = V~_t^T p_t.
inline GsaReference gsaReference(const GsaProblem& p) {
    const int64_t n = p.n, m = p.slots, dk = p.dk, dv = p.dv;
    const int group = p.heads / p.kvHeads;
    GsaReference r;
    r.out.assign(p.heads * n * dv, 0.0);
    r.scores.assign(p.heads * n * m, 0.0);
    r.probs.assign(p.heads * n * m, 0.0);
    r.lse.assign(p.heads * n, 0.0);
    r.cumsum.assign(p.kvHeads * n * m, 0.0);
    r.stateK.assign(p.kvHeads * n * m * dk, 0.0);
    r.stateV.assign(p.kvHeads * n * m * dv, 0.0);
    for (int h = 0; h < p.heads; ++h) {
        const int kv = h / group;
        std::vector<double> sk(m * dk, 0.0), sv(m * dv, 0.0), g(m, 0.0);
        for (int64_t t = 0; t < n; ++t) {
            const int64_t gate = (kv * n + t) * m;
            for (int64_t j = 0; j < m; ++j) {
                const double a = std::exp(double(p.logForget[gate + j]));
                const double s = p.write[gate + j];
                g[j] += p.logForget[gate + j];
                for (int64_t d = 0; d < dk; ++d)
                    sk[j * dk + d] = a * sk[j * dk + d] + s * p.k[(kv * n + t) * dk + d];
                for (int64_t d = 0; d < dv; ++d)
                    sv[j * dv + d] = a * sv[j * dv + d] + s * p.v[(kv * n + t) * dv + d];
            }
            double* sc = &r.scores[(h * n + t) * m];
            for (int64_t j = 0; j < m; ++j) {
                double acc = 0.0;
                for (int64_t d = 0; d < dk; ++d)
                    acc += sk[j * dk + d] * p.q[(h * n + t) * dk + d];
                sc[j] = p.scale * acc;
            }
            const double mx = *std::max_element(sc, sc + m);
            double sum = 0.0;
            for (int64_t j = 0; j < m; ++j)
                sum += std::exp(sc[j] - mx);
            r.lse[h * n + t] = mx + std::log(sum);
            double* pr = &r.probs[(h * n + t) * m];
            for (int64_t j = 0; j < m; ++j)
                pr[j] = std::exp(sc[j] - mx) / sum;
            for (int64_t d = 0; d < dv; ++d) {
                double acc = 0.0;
                for (int64_t j = 0; j < m; ++j)
                    acc += pr[j] * sv[j * dv + d];
                r.out[(h * n + t) * dv + d] = acc;
            }
            if (h % group == 0) {
                std::copy(g.begin(), g.end(), &r.cumsum[(kv * n + t) * m]);
                std::copy(sk.begin(), sk.end(), &r.stateK[(kv * n + t) * m * dk]);
                std::copy(sv.begin(), sv.end(), &r.stateV[(kv * n + t) * m * dv]);
            }
        }
    }
    return r;
}

/// Dense token map of head h from double factors: A[t,i] = sum_j p[t,j] s[i,j] exp(G[t,j]-G[i,j])
/// for i <= t, else 0. p [n, m] of the head; s and G [n, m] of its kv head.
inline std::vector<double> gsaDenseMap(int64_t n, int64_t m, const double* p, const float* s,
                                       const double* g) {
    std::vector<double> a(n * n, 0.0);
    for (int64_t t = 0; t < n; ++t)
        for (int64_t i = 0; i <= t; ++i) {
            double acc = 0.0;
            for (int64_t j = 0; j < m; ++j)
                acc += p[t * m + j] * s[i * m + j] * std::exp(g[t * m + j] - g[i * m + j]);
            a[t * n + i] = acc;
        }
    return a;
}

/// max |a - b| / max(|b|, floor) over the whole array.
template <class A, class B>
double maxRelativeError(const std::vector<A>& actual, const std::vector<B>& expected,
                        double floor = 1e-12) {
    double diff = 0.0, ref = floor;
    for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
        diff = std::max(diff, std::abs(double(actual[i]) - double(expected[i])));
        ref = std::max(ref, std::abs(double(expected[i])));
    }
    return actual.size() == expected.size() ? diff / ref : 1e30;
}

}  // namespace gatescope::test
