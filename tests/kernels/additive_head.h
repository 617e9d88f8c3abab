// Test helpers for the additive-decay kernels: random heads that own their factors, and error
// measures. Distributions follow the models: q, k, v ~ N(0, 1) times a per-case scale, forget
// gates log f = logsigmoid(N(mu, 1)) (FoX's data-dependent gate), c = cumsum(log f) in float32
// as the official code computes it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/head_factors.h"

namespace gatescope::test::additive {

struct HeadSpec {
    int64_t n = 64;
    int dk = 16, dv = 16;
    bool decay = true;
    int64_t window = 0;
    float qScale = 1.0f, kScale = 1.0f, vScale = 1.0f;
    float gateMean = 2.0f;  ///< mu of the gate logits: log f = logsigmoid(N(mu, 1))
    int rowPad = 0;         ///< extra floats per q/k/v row, to exercise the strides
    uint32_t seed = 1;
};

/// A head with owned factors; view() is valid while the object lives and is not moved.
struct RandomHead {
    explicit RandomHead(const HeadSpec& spec) : spec(spec) {
        std::mt19937 rng(spec.seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        auto fill = [&](std::vector<float>& x, int width, float scale) {
            x.assign(spec.n * (width + spec.rowPad), 0.0f);
            for (int64_t r = 0; r < spec.n; ++r)
                for (int d = 0; d < width; ++d)
                    x[r * (width + spec.rowPad) + d] = scale * normal(rng);
        };
        fill(q, spec.dk, spec.qScale);
        fill(k, spec.dk, spec.kScale);
        fill(v, spec.dv, spec.vScale);
        if (spec.decay) {
            c.resize(spec.n);
            float running = 0.0f;
            for (int64_t i = 0; i < spec.n; ++i) {
                const float logit = spec.gateMean + normal(rng);
                // logsigmoid(x) = -log(1 + exp(-x)), written to stay accurate for large |x|.
                const float logGate = logit >= 0 ? -std::log1p(std::exp(-logit))
                                                 : logit - std::log1p(std::exp(logit));
                running += logGate;
                c[i] = running;
            }
        }
    }

    kernels::AdditiveDecayHead view() const {
        kernels::AdditiveDecayHead h;
        h.n = spec.n;
        h.dk = spec.dk;
        h.dv = spec.dv;
        h.q = q.data();
        h.k = k.data();
        h.v = v.data();
        h.qStride = h.kStride = spec.dk + spec.rowPad;
        h.vStride = spec.dv + spec.rowPad;
        h.logDecayCumsum = spec.decay ? c.data() : nullptr;
        h.scale = 1.0f / std::sqrt(static_cast<float>(spec.dk));
        h.window = spec.window;
        h.lse = lse.empty() ? nullptr : lse.data();
        return h;
    }

    HeadSpec spec;
    std::vector<float> q, k, v, c;
    std::vector<float> lse;  ///< set by a test when tiles need it
};

/// max |actual - expected| / max |expected| (absolute error when expected is all zero).
template <class A, class E>
double relativeError(const A& actual, const E& expected) {
    double err = 0.0, scale = 0.0;
    for (size_t i = 0; i < expected.size(); ++i) {
        err = std::max(err,
                       std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i])));
        scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
    }
    return scale > 0.0 ? err / scale : err;
}

}  // namespace gatescope::test::additive
