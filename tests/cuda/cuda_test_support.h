// Shared by the CUDA kernel tests (tests/cuda/*_test.cpp): an owning device buffer, rounding to
// the kernels' element types, random inputs, the error summary of a GPU output against its CPU
// reference, and the fixture that skips when no CUDA device is present.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/pyramid_builder.h"
#include "kernels/cpu/tile_source.h"
#include "kernels/cuda/attention_cuda.h"

#define CUDA_OK(expr)                                                          \
    do {                                                                       \
        const cudaError_t _e = (expr);                                         \
        ASSERT_EQ(_e, cudaSuccess) << #expr << ": " << cudaGetErrorString(_e); \
    } while (0)

namespace gatescope::cudatest {

using kernels::cuda::DType;

inline size_t elementSize(DType t) {
    return t == DType::F32 ? 4 : 2;
}

/// Decodes raw elements of type t to floats.
inline std::vector<float> toFloats(DType t, const std::vector<uint8_t>& raw) {
    const size_t count = raw.size() / elementSize(t);
    std::vector<float> out(count);
    for (size_t i = 0; i < count; ++i) {
        if (t == DType::F32) {
            std::memcpy(&out[i], raw.data() + 4 * i, 4);
        } else if (t == DType::F16) {
            __half h;
            std::memcpy(&h, raw.data() + 2 * i, 2);
            out[i] = __half2float(h);
        } else {
            __nv_bfloat16 h;
            std::memcpy(&h, raw.data() + 2 * i, 2);
            out[i] = __bfloat162float(h);
        }
    }
    return out;
}

/// Owning device buffer (ptr is null when the allocation failed).
struct DeviceBuffer {
    void* ptr = nullptr;
    size_t bytes = 0;
    explicit DeviceBuffer(size_t size) : bytes(size) {
        if (cudaMalloc(&ptr, std::max<size_t>(size, 1)) != cudaSuccess) ptr = nullptr;
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr);
    }
    void poison() const { cudaMemset(ptr, 0xFF, bytes); }  // NaN in f32, f16 and bf16
    bool upload(const void* src) const {
        return cudaMemcpy(ptr, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    }
    /// The whole buffer as elements of type t, decoded to floats; empty when the copy fails.
    std::vector<float> floatsOnHost(DType t) const {
        std::vector<uint8_t> raw(bytes);
        if (cudaMemcpy(raw.data(), ptr, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return {};
        return toFloats(t, raw);
    }
};

/// Rounds x to type t: returns the rounded values as float (what the GPU reads) and the encoded
/// bits in `raw`.
inline std::vector<float> roundTo(DType t, const std::vector<float>& x, std::vector<uint8_t>& raw) {
    std::vector<float> rounded(x.size());
    raw.resize(x.size() * elementSize(t));
    for (size_t i = 0; i < x.size(); ++i) {
        if (t == DType::F32) {
            rounded[i] = x[i];
            std::memcpy(raw.data() + 4 * i, &x[i], 4);
        } else if (t == DType::F16) {
            const __half h = __float2half_rn(x[i]);
            rounded[i] = __half2float(h);
            std::memcpy(raw.data() + 2 * i, &h, 2);
        } else {
            const __nv_bfloat16 h = __float2bfloat16_rn(x[i]);
            rounded[i] = __bfloat162float(h);
            std::memcpy(raw.data() + 2 * i, &h, 2);
        }
    }
    return rounded;
}

inline std::vector<float> randomNormal(size_t count, float sigma, std::mt19937& rng) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> x(count);
    for (float& v : x)
        v = dist(rng);
    return x;
}

/// A forward's output and row lse against the CPU reference.
struct Errors {
    double rel = 0.0;               ///< relative L2 error of the output
    double maxAbs = 0.0;            ///< largest absolute output error
    double maxRef = 0.0;            ///< largest |reference output|
    double lseMax = 0.0;            ///< largest |lse - ref| / (1 + |ref|)
    int64_t nans = 0, lseNans = 0;  ///< non-finite (unwritten: the buffers are poisoned) elements
};

inline Errors compare(const std::vector<float>& out, const std::vector<float>& refOut,
                      const std::vector<float>& lse, const std::vector<float>& refLse) {
    Errors e;
    double errSq = 0.0, refSq = 0.0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (!std::isfinite(out[i])) {
            ++e.nans;
            continue;
        }
        const double d = double(out[i]) - refOut[i];
        errSq += d * d;
        refSq += double(refOut[i]) * refOut[i];
        e.maxAbs = std::max(e.maxAbs, std::abs(d));
        e.maxRef = std::max(e.maxRef, std::abs(double(refOut[i])));
    }
    for (size_t i = 0; i < lse.size(); ++i) {
        if (!std::isfinite(lse[i])) {
            ++e.lseNans;
            continue;
        }
        e.lseMax = std::max(
            e.lseMax, std::abs(double(lse[i]) - refLse[i]) / (1.0 + std::abs(double(refLse[i]))));
    }
    e.rel = std::sqrt(errSq / std::max(refSq, 1e-30));
    return e;
}

/// Cumulative log forget gates c = cumsum(log sigmoid(z)), z ~ N(2, 1.5), per head.
inline std::vector<float> randomLogDecayCumsum(int heads, int64_t n, std::mt19937& rng) {
    std::normal_distribution<float> dist(2.0f, 1.5f);
    std::vector<float> c(size_t(heads) * n);
    for (int h = 0; h < heads; ++h) {
        float acc = 0.0f;
        for (int64_t i = 0; i < n; ++i) {
            const float z = dist(rng);
            acc += -std::log1p(std::exp(-z));
            c[size_t(h) * n + i] = acc;
        }
    }
    return c;
}

/// Wall's P [heads][n][channels]: cumulative log-sigmoid gates accumulated in double (as the
/// model does) and rounded once. Channel c has its own retention: z ~ N(mu_c, 1) with mu_c from
/// 6 (retention ~0.998: P drifts slowly but far at long N) down to -1 (fast decay), so P spans
/// small to very large magnitudes within a head.
inline std::vector<float> randomWallCumsum(int heads, int64_t n, int channels, std::mt19937& rng) {
    std::vector<float> p(size_t(heads) * n * channels);
    std::normal_distribution<double> unit(0.0, 1.0);
    for (int h = 0; h < heads; ++h)
        for (int c = 0; c < channels; ++c) {
            const double mu = channels > 1 ? 6.0 - 7.0 * c / (channels - 1) : 3.0;
            double acc = 0.0;
            for (int64_t t = 0; t < n; ++t) {
                const double z = mu + unit(rng);
                acc += -std::log1p(std::exp(-z));
                p[(size_t(h) * n + t) * channels + c] = static_cast<float>(acc);
            }
        }
    return p;
}

/// randomWallCumsum's gates through Wall's soft clamp g = 0.86 expm1(x / 0.86) (spec §1.2: at
/// most 0.86 a token, the models' gates). With `burst`, every third channel falls 3 a token over
/// tokens [n / 3, n / 3 + 100): tiles there are too steep for one anchor, the rest are not.
inline std::vector<float> clampedWallCumsum(int heads, int64_t n, int channels, bool burst,
                                            std::mt19937& rng) {
    std::vector<float> p(size_t(heads) * n * channels);
    std::normal_distribution<double> unit(0.0, 1.0);
    constexpr double gMax = 0.86;
    for (int h = 0; h < heads; ++h)
        for (int c = 0; c < channels; ++c) {
            const double mu = channels > 1 ? 6.0 - 7.0 * c / (channels - 1) : 3.0;
            double acc = 0.0;
            for (int64_t t = 0; t < n; ++t) {
                const double x = -std::log1p(std::exp(-(mu + unit(rng))));
                const bool steep = burst && c % 3 == 0 && t >= n / 3 && t < n / 3 + 100;
                acc += steep ? -3.0 : gMax * std::expm1(x / gMax);
                p[(size_t(h) * n + t) * channels + c] = static_cast<float>(acc);
            }
        }
    return p;
}

/// Power's G [heads][n]: cumulative log-sigmoid gates, z ~ N(3, 1.5).
inline std::vector<float> randomPowerCumsum(int heads, int64_t n, std::mt19937& rng) {
    std::vector<float> g(size_t(heads) * n);
    std::normal_distribution<double> dist(3.0, 1.5);
    for (int h = 0; h < heads; ++h) {
        double acc = 0.0;
        for (int64_t t = 0; t < n; ++t) {
            acc += -std::log1p(std::exp(-dist(rng)));
            g[size_t(h) * n + t] = static_cast<float>(acc);
        }
    }
    return g;
}

// Pyramid levels of every head as the CPU builder delivers them: NaN where it delivered nothing.
using Levels = std::vector<std::vector<float>>;  // [level][head * S^2 + cell]

/// Levels [finest, coarsest] of `kind` from `source` (head h) into maxL / meanL, which hold
/// every head at h * S^2 (sized by the caller, NaN-filled).
inline void cpuPyramid(const kernels::TileSource& source, kernels::MapKind kind, int64_t n,
                       int finest, int coarsest, int h, Levels& maxL, Levels& meanL) {
    namespace gk = kernels;
    gk::PyramidRequest request;
    request.kind = kind;
    request.finestLevel = finest;
    request.coarsestLevel = coarsest;
    request.maxFinestSide = 1 << 16;
    gk::PyramidCallbacks callbacks;
    callbacks.onTile = [&](int level, gk::Pool pool, int64_t tr, int64_t tc, const float* t) {
        const int l = level - finest;
        const int64_t side = gk::pyramidSide(n, level);
        float* dst = (pool == gk::Pool::Max ? maxL[l] : meanL[l]).data() + h * side * side;
        for (int64_t y = 0; y < gk::kPyramidTile; ++y)
            for (int64_t x = 0; x < gk::kPyramidTile; ++x) {
                const int64_t r = tr * gk::kPyramidTile + y, c = tc * gk::kPyramidTile + x;
                if (r < side && c < side) dst[r * side + c] = t[y * gk::kPyramidTile + x];
            }
    };
    ASSERT_TRUE(gk::buildPyramid(source, request, callbacks));
}

/// |gpu - cpu| <= rtol |cpu| + atol for every element; -inf must match -inf. Returns the count
/// of mismatches and reports the worst relative error.
inline int64_t compareTiles(const std::vector<float>& gpu, const std::vector<float>& cpu,
                            double rtol, double atol, double* worst) {
    int64_t bad = 0;
    *worst = 0.0;
    for (size_t i = 0; i < cpu.size(); ++i) {
        const float a = gpu[i], b = cpu[i];
        if (std::isinf(b) || std::isinf(a)) {
            bad += a != b;
            continue;
        }
        if (std::isnan(a) || std::isnan(b)) {
            ++bad;
            continue;
        }
        const double e = std::abs(double(a) - b);
        *worst = std::max(*worst, e / (std::abs(double(b)) + atol / rtol));
        bad += e > rtol * std::abs(double(b)) + atol;
    }
    return bad;
}

/// Compares one GPU pyramid level (max and mean pools, device buffers) with the CPU builder's,
/// over the cells the CPU delivered (it delivers only causal tiles; the rest is NaN), to
/// rtol 1e-4. Prints "[tag] label: cells, worst relative errors".
inline void expectLevelMatchesCpu(const float* deviceMax, const float* deviceMean,
                                  const std::vector<float>& cpuMax,
                                  const std::vector<float>& cpuMean, const char* tag,
                                  const std::string& label) {
    std::vector<float> gMax(cpuMax.size()), gMean(cpuMean.size());
    CUDA_OK(cudaMemcpy(gMax.data(), deviceMax, gMax.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(gMean.data(), deviceMean, gMean.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<float> a, b, am, bm;
    for (size_t i = 0; i < gMax.size(); ++i) {
        if (std::isnan(cpuMax[i])) continue;
        a.push_back(gMax[i]);
        b.push_back(cpuMax[i]);
        am.push_back(gMean[i]);
        bm.push_back(cpuMean[i]);
    }
    ASSERT_FALSE(b.empty()) << label;
    double worstMax = 0.0, worstMean = 0.0;
    EXPECT_EQ(compareTiles(a, b, 1e-4, 1e-9, &worstMax), 0) << "max pool, " << label;
    EXPECT_EQ(compareTiles(am, bm, 1e-4, 1e-9, &worstMean), 0) << "mean pool, " << label;
    std::printf("[%s] %s: %zu cells, worst rel max %.2e mean %.2e\n", tag, label.c_str(), b.size(),
                worstMax, worstMean);
}

/// Skips the test when no CUDA device is visible (CI builds the GPU tests and skips them).
class CudaTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (kernels::cuda::deviceCount() == 0) GTEST_SKIP() << "no CUDA device";
    }
};

}  // namespace gatescope::cudatest
