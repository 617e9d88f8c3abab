// Synthetic head factors for the row and column tests (query_row_test.cpp,
// key_column_test.cpp): random q and k, non-increasing cumulative log gates, and a head whose row
// normalizer is computed in float64 from a reference logit.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "core/maps/trace_head.h"

namespace gatescope::core::rowfixture {

constexpr int64_t kN = 300;
constexpr int kD = 16;
constexpr double kInf = std::numeric_limits<double>::infinity();

inline std::vector<float> randoms(size_t count, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> out(count);
    for (float& v : out)
        v = u(rng);
    return out;
}

/// A non-increasing cumulative log gate per column of a [kN, width] array.
inline std::vector<float> cumsums(int width, unsigned seed) {
    auto g = randoms(kN * width, -0.3f, -0.001f, seed);
    for (int64_t t = 1; t < kN; ++t)
        for (int c = 0; c < width; ++c)
            g[t * width + c] += g[(t - 1) * width + c];
    return g;
}

/// The head over `factors`, with the row normalizer computed here (float64) from `logit`.
template <class Logit>
std::unique_ptr<TraceHead> makeHead(MapSpec spec, HeadFactorSet factors, const char* normalizer,
                                    Logit logit) {
    std::vector<float> lse(kN);
    for (int64_t i = 0; i < kN; ++i) {
        double m = -kInf, s = 0;
        for (int64_t j = 0; j <= i; ++j)
            m = std::max(m, logit(i, j));
        for (int64_t j = 0; j <= i; ++j)
            s += std::exp(logit(i, j) - m);
        lse[i] = static_cast<float>(m + std::log(s));
    }
    factors.n = kN;
    factors.add(normalizer, lse, 1);
    auto head = std::make_unique<TraceHead>();
    head->spec = std::move(spec);
    head->factors = std::move(factors);
    head->source = std::move(makeTileSource(head->spec, head->factors).value());
    return head;
}

inline double dot(const std::vector<float>& q, const std::vector<float>& k, int64_t i, int64_t j,
                  int from, int to, const std::vector<float>* p = nullptr, int pw = 0) {
    double s = 0;
    for (int c = from; c < to; ++c) {
        const double r = p ? std::exp(double((*p)[i * pw + c]) - (*p)[j * pw + c]) : 1.0;
        s += double(q[i * kD + c]) * k[j * kD + c] * r;
    }
    return s;
}

/// A Wall head with 8 gated channels of kD and a scalar gate (random q, k and cumulative log
/// gates), and its scores' content part (scale q.k) and forgetting part (what the gates change)
/// in float64 from the formula; the functions own the factors they read.
struct WallHead {
    std::unique_ptr<TraceHead> head;
    std::function<double(int64_t, int64_t)> content, forget;
};

inline WallHead wallHead() {
    MapSpec spec;
    spec.scoreKind = ScoreKind::Wall;
    spec.scale = 0.3;
    spec.hasDecay = true;
    spec.extras = {{"gated_channels", 8}, {"scalar_gate", true}};
    struct Factors {
        std::vector<float> q, k, p, c;
    };
    auto f = std::make_shared<Factors>(Factors{
        randoms(kN * kD, -1, 1, 7), randoms(kN * kD, -1, 1, 8), cumsums(8, 9), cumsums(1, 10)});
    HeadFactorSet set;
    set.add("q", f->q, kD);
    set.add("k", f->k, kD);
    set.add("log_decay_cumsum", f->p, 8);
    set.add("log_scalar_decay_cumsum", f->c, 1);
    auto content = [f](int64_t i, int64_t j) { return 0.3 * dot(f->q, f->k, i, j, 0, kD); };
    auto logit = [f](int64_t i, int64_t j) {
        return 0.3 * (dot(f->q, f->k, i, j, 0, 8, &f->p, 8) + dot(f->q, f->k, i, j, 8, kD)) +
               f->c[i] - f->c[j];
    };
    return {makeHead(spec, set, "lse", logit), content,
            [content, logit](int64_t i, int64_t j) { return logit(i, j) - content(i, j); }};
}

}  // namespace gatescope::core::rowfixture
