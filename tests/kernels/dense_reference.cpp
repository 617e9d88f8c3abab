#include "dense_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/fast_math.h"

namespace gatescope::test::additive {
namespace {

bool allowed(const kernels::AdditiveDecayHead& h, int64_t i, int64_t j) {
    return j <= i && j >= h.firstKey(i);
}

double logit(const kernels::AdditiveDecayHead& h, int64_t i, int64_t j) {
    double dot = 0.0;
    for (int d = 0; d < h.dk; ++d)
        dot += static_cast<double>(h.q[i * h.qRow() + d]) * h.k[j * h.kRow() + d];
    const double decay = h.logDecayCumsum ? static_cast<double>(h.logDecayCumsum[i]) -
                                                static_cast<double>(h.logDecayCumsum[j])
                                          : 0.0;
    return static_cast<double>(h.scale) * dot + decay;
}

}  // namespace

DenseForward denseForward(const kernels::AdditiveDecayHead& h) {
    DenseForward r{std::vector<double>(h.n * h.dv, 0.0), std::vector<double>(h.n, 0.0)};
    std::vector<double> row(h.n);
    for (int64_t i = 0; i < h.n; ++i) {
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t j = h.firstKey(i); j <= i; ++j)
            max = std::max(max, row[j] = logit(h, i, j));
        double sum = 0.0;
        for (int64_t j = h.firstKey(i); j <= i; ++j)
            sum += std::exp(row[j] - max);
        r.lse[i] = max + std::log(sum);
        for (int64_t j = h.firstKey(i); j <= i; ++j) {
            const double a = std::exp(row[j] - r.lse[i]);
            for (int d = 0; d < h.dv; ++d)
                r.out[i * h.dv + d] += a * h.v[j * h.vRow() + d];
        }
    }
    return r;
}

DenseForward denseForwardBf16(const kernels::AdditiveDecayHead& h, int blockSize) {
    DenseForward r{std::vector<double>(h.n * h.dv, 0.0), std::vector<double>(h.n, 0.0)};
    std::vector<double> acc(h.dv);
    for (int64_t i = 0; i < h.n; ++i) {
        const int64_t block = blockSize;
        const int64_t qb0 = i / block * block;
        double m = -std::numeric_limits<double>::infinity(), l = 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t j0 = h.firstKey(qb0) / block * block; j0 <= i; j0 += block) {
            const int64_t lo = std::max(j0, h.firstKey(i)), hi = std::min(j0 + block - 1, i);
            if (lo > hi) continue;
            double blockMax = -std::numeric_limits<double>::infinity();
            for (int64_t j = lo; j <= hi; ++j)
                blockMax = std::max(blockMax, logit(h, i, j));
            const double mNew = std::max(m, blockMax);
            const double alpha = std::exp(m - mNew);
            l *= alpha;
            for (double& a : acc)
                a *= alpha;
            for (int64_t j = lo; j <= hi; ++j) {
                const double p = std::exp(logit(h, i, j) - mNew);
                l += p;
                const double pb = kernels::roundToBf16(static_cast<float>(p));
                for (int d = 0; d < h.dv; ++d)
                    acc[d] += pb * h.v[j * h.vRow() + d];
            }
            m = mNew;
        }
        for (int d = 0; d < h.dv; ++d)
            r.out[i * h.dv + d] = acc[d] / l;
        r.lse[i] = m + std::log(l);
    }
    return r;
}

DenseMaps denseMaps(const kernels::AdditiveDecayHead& h) {
    const int64_t n = h.n;
    DenseMaps maps{std::vector<double>(n * n, -std::numeric_limits<double>::infinity()),
                   std::vector<double>(n * n, 0.0), std::vector<double>(n * n, 0.0)};
    const DenseForward fwd = denseForward(h);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            if (!allowed(h, i, j)) continue;
            const double x = logit(h, i, j);
            maps.logit[i * n + j] = x;
            maps.attention[i * n + j] = std::exp(x - fwd.lse[i]);
            maps.decay[i * n + j] = h.logDecayCumsum
                                        ? std::exp(static_cast<double>(h.logDecayCumsum[i]) -
                                                   static_cast<double>(h.logDecayCumsum[j]))
                                        : 1.0;
        }
    }
    return maps;
}

}  // namespace gatescope::test::additive
