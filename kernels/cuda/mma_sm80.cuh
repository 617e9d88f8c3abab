// Private to kernels/cuda: the sm_80 instructions the tensor-core kernels are built from
// (cp.async, ldmatrix, mma.sync m16n8k16 with fp32 accumulation, ex2.approx), as thin inline
// PTX wrappers. When a build also targets architectures below sm_80, their device code traps
// instead; hosts check the kernel's ptxVersion and take a fallback kernel there.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace gatescope::kernels::cuda::detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GATESCOPE_SM80_ASM(...) __trap()
#else
#define GATESCOPE_SM80_ASM(...) asm volatile(__VA_ARGS__)
#endif

__device__ __forceinline__ uint32_t smemAddress(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// 16 bytes global -> shared, asynchronously; zero-fills when !valid (src is then not read).
__device__ __forceinline__ void cpAsync16(void* dst, const void* src, bool valid) {
    GATESCOPE_SM80_ASM("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddress(dst)),
                       "l"(src), "r"(valid ? 16 : 0));
}

__device__ __forceinline__ void cpAsync4(void* dst, const void* src, bool valid) {
    GATESCOPE_SM80_ASM("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smemAddress(dst)),
                       "l"(src), "r"(valid ? 4 : 0));
}

__device__ __forceinline__ void cpAsyncCommit() {
    GATESCOPE_SM80_ASM("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    GATESCOPE_SM80_ASM("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t* r, const void* p) {
    GATESCOPE_SM80_ASM("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                       : "r"(smemAddress(p)));
}

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t* r, const void* p) {
    GATESCOPE_SM80_ASM("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                       : "r"(smemAddress(p)));
}

/// d += a b for one m16n8k16 tile (a: 4 registers of the A fragment, b0/b1 the B fragment).
template <class T>
__device__ __forceinline__ void mma16816(float* d, const uint32_t* a, uint32_t b0, uint32_t b1);

template <>
__device__ __forceinline__ void mma16816<__nv_bfloat16>(float* d, const uint32_t* a, uint32_t b0,
                                                        uint32_t b1) {
    GATESCOPE_SM80_ASM(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <>
__device__ __forceinline__ void mma16816<__half>(float* d, const uint32_t* a, uint32_t b0,
                                                 uint32_t b1) {
    GATESCOPE_SM80_ASM(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// 2^x by the special-function unit (relative error about 2^-22; 2^-inf = 0).
__device__ __forceinline__ float fastExp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/// Two floats rounded to a packed pair of T (lo in the low half).
template <class T>
__device__ __forceinline__ uint32_t packPair(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t packPair<__nv_bfloat16>(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}
template <>
__device__ __forceinline__ uint32_t packPair<__half>(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

/// The two floats a packPair<T> holds (lo, hi), exactly (bf16: the power instances' only type).
template <class T>
__device__ __forceinline__ float unpackLo(uint32_t pair);
template <class T>
__device__ __forceinline__ float unpackHi(uint32_t pair);
template <>
__device__ __forceinline__ float unpackLo<__nv_bfloat16>(uint32_t pair) {
    return __uint_as_float(pair << 16);
}
template <>
__device__ __forceinline__ float unpackHi<__nv_bfloat16>(uint32_t pair) {
    return __uint_as_float(pair & 0xffff0000u);
}

}  // namespace gatescope::kernels::cuda::detail
