// Vectorized row and tile primitives shared by the CPU attention forward, tile recompute and
// pyramid building. Lengths called `n` below must be multiples of kVec (callers pad their
// buffers); pointers must not alias unless stated. Each function is compiled for several x86-64
// levels (AVX-512, AVX2+FMA, baseline SSE2) and picks the best one at load time, so results can
// differ in the last bits between machines (FMA contraction), never between runs on one machine.
// Pure functions; call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace gatescope::kernels {

/// The score of a masked cell: exp(-inf) == 0 in the primitives.
inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// Blocking of tile recomputation: query rows and key columns per GEMM block.
inline constexpr int64_t kTileRowChunk = 64;
inline constexpr int64_t kTileColChunk = 256;

/// Row chunk the primitives are unrolled for; buffers are padded to a multiple of it.
inline constexpr int64_t kVec = 16;
inline constexpr int64_t padToVec(int64_t n) {
    return (n + kVec - 1) / kVec * kVec;
}

/// Allocator aligning to a cache line: the primitives load whole 64-byte vectors, and a buffer
/// whose rows straddle cache lines runs about a third slower.
template <class T>
struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(std::size_t count) {
        return static_cast<T*>(::operator new(count * sizeof(T), kAlignment));
    }
    void deallocate(T* p, std::size_t) { ::operator delete(p, kAlignment); }
    friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};

/// Float buffer for the primitives: 64-byte aligned, so rows with a leading dimension that is
/// a multiple of kVec start on cache lines.
using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

/// C[m x n] += A[m x k] B[k x n] (row-major, leading dimensions in elements); n % kVec == 0.
void gemmAccumulate(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                    int64_t ldb, float* c, int64_t ldc);

/// s[j] = scale * s[j] + (ci - cKeys[j]) for lo <= j < hi, -inf elsewhere in [0, n). Returns
/// the maximum over [lo, hi) (-inf when empty). The decay is formed as the difference of the
/// two cumulative sums, as the official kernels do.
float biasMaskMax(float* s, int64_t n, float scale, float ci, const float* cKeys, int64_t lo,
                  int64_t hi);

/// s[j] = exp(s[j] - shift) (exp(-inf) = 0); returns the float sum of these values. With
/// roundBf16 the stored values are then rounded to bfloat16 while the returned sum is not, as
/// in the official FoX Triton kernel (l from fp32 p, P.V from bf16 p).
float expShiftSum(float* s, int64_t n, float shift, bool roundBf16);

/// x[j] *= factor.
void scaleRow(float* x, int64_t n, float factor);

}  // namespace gatescope::kernels
