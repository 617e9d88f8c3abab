// Synthetic head factors for the row and column tests (query_row_test.cpp,
// key_column_test.cpp): random q and k, non-increasing cumulative log gates, and a head whose row
// normalizer is computed in float64 from a reference logit.
#pragma once

#include <algorithm>
#include <cmath>
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

}  // namespace gatescope::core::rowfixture
