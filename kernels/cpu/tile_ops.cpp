#include "kernels/cpu/tile_ops.h"

#include <limits>

#include "kernels/cpu/fast_math.h"

// One build runs everywhere, yet the hot loops should use the widest vectors the CPU has:
// GCC's function multi-versioning emits one copy per level and an ifunc resolver picks it at
// load time. Everything the loops call is always_inline, so it is compiled for that level too.
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define GATESCOPE_SIMD_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GATESCOPE_SIMD_CLONES
#endif

namespace gatescope::kernels {
namespace {

// Panel sizes of gemmAccumulate: a kPanelK x kPanelN panel of B (32 KiB) stays close to L1
// while every row of A streams past it (measured best of 32..128 on a Zen 4 core).
constexpr int64_t kPanelN = 128;
constexpr int64_t kPanelK = 64;

}  // namespace

GATESCOPE_SIMD_CLONES
void gemmAccumulate(int64_t m, int64_t n, int64_t k, const float* __restrict a, int64_t lda,
                    const float* __restrict b, int64_t ldb, float* __restrict c, int64_t ldc) {
    for (int64_t j0 = 0; j0 < n; j0 += kPanelN) {
        const int64_t j1 = j0 + kPanelN < n ? j0 + kPanelN : n;
        for (int64_t p0 = 0; p0 < k; p0 += kPanelK) {
            const int64_t p1 = p0 + kPanelK < k ? p0 + kPanelK : k;
            for (int64_t r = 0; r < m; ++r) {
                float* __restrict cr = c + r * ldc;
                const float* ar = a + r * lda;
                int64_t p = p0;
                // Eight rank-1 updates per pass: one load and store of C per eight FMAs.
                for (; p + 8 <= p1; p += 8) {
                    const float* b0 = b + p * ldb;
                    const float a0 = ar[p], a1 = ar[p + 1], a2 = ar[p + 2], a3 = ar[p + 3];
                    const float a4 = ar[p + 4], a5 = ar[p + 5], a6 = ar[p + 6], a7 = ar[p + 7];
                    for (int64_t jb = j0; jb < j1; jb += kVec)
                        for (int64_t j = jb; j < jb + kVec; ++j)
                            cr[j] += (a0 * b0[j] + a1 * b0[j + ldb] + a2 * b0[j + 2 * ldb] +
                                      a3 * b0[j + 3 * ldb]) +
                                     (a4 * b0[j + 4 * ldb] + a5 * b0[j + 5 * ldb] +
                                      a6 * b0[j + 6 * ldb] + a7 * b0[j + 7 * ldb]);
                }
                for (; p < p1; ++p) {
                    const float a0 = ar[p];
                    const float* b0 = b + p * ldb;
                    for (int64_t jb = j0; jb < j1; jb += kVec)
                        for (int64_t j = jb; j < jb + kVec; ++j)
                            cr[j] += a0 * b0[j];
                }
            }
        }
    }
}

GATESCOPE_SIMD_CLONES
float biasMaskMax(float* __restrict s, int64_t n, float scale, float ci,
                  const float* __restrict cKeys, int64_t lo, int64_t hi) {
    float lane[kVec];
    for (int64_t j = 0; j < kVec; ++j)
        lane[j] = kNegInf;
    for (int64_t jb = 0; jb < n; jb += kVec) {
        for (int64_t j = jb; j < jb + kVec; ++j) {
            const float value = scale * s[j] + (ci - cKeys[j]);
            const float masked = j >= lo && j < hi ? value : kNegInf;
            s[j] = masked;
            lane[j - jb] = masked > lane[j - jb] ? masked : lane[j - jb];
        }
    }
    float best = kNegInf;
    for (int64_t j = 0; j < kVec; ++j)
        best = lane[j] > best ? lane[j] : best;
    return best;
}

GATESCOPE_SIMD_CLONES
float expShiftSum(float* __restrict s, int64_t n, float shift, bool roundBf16) {
    float lane[kVec] = {};
    for (int64_t jb = 0; jb < n; jb += kVec) {
        for (int64_t j = jb; j < jb + kVec; ++j) {
            const float p = fastExp(s[j] - shift);
            lane[j - jb] += p;
            s[j] = p;
        }
    }
    if (roundBf16) {
        for (int64_t jb = 0; jb < n; jb += kVec)
            for (int64_t j = jb; j < jb + kVec; ++j)
                s[j] = roundToBf16(s[j]);
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < kVec; ++j)
        sum += lane[j];
    return sum;
}

GATESCOPE_SIMD_CLONES
void scaleRow(float* __restrict x, int64_t n, float factor) {
    for (int64_t jb = 0; jb < n; jb += kVec)
        for (int64_t j = jb; j < jb + kVec; ++j)
            x[j] *= factor;
}

}  // namespace gatescope::kernels
