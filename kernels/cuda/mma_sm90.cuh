// Private to the sm_90a forward: warpgroup MMA (wgmma) helpers as thin inline PTX. Shared-memory
// operands are 128-byte-swizzled tiles: 64-element (128-byte) column blocks of R rows each,
// stored one block after the other ([D / 64][R][64]); within a block the 16-byte chunk c of row r
// sits at chunk c ^ (r % 8), the layout wgmma's 128B swizzle mode reads. Compiled for anything but
// sm_90a, the instructions trap; hosts check hasSm90aCode() first.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace gatescope::kernels::cuda::detail {

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GATESCOPE_SM90_ASM(...) __trap()
#define GATESCOPE_SM90A_CODE 0
#else
#define GATESCOPE_SM90_ASM(...) asm volatile(__VA_ARGS__)
#define GATESCOPE_SM90A_CODE 1
#endif

/// Byte offset of 16-byte chunk `chunk` (of D / 8) of row `row` in a swizzled tile of `rows` rows.
__host__ __device__ constexpr uint32_t swizzledOffset(int row, int chunk, int rows) {
    return uint32_t((chunk / 8) * rows * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) << 4));
}

/// wgmma shared-memory descriptor, 128B swizzle. K-major operands (Q, K): `lbo` unused, `sbo` =
/// 1024 (eight 128-byte rows). MN-major (V through the transpose bit): `lbo` = bytes between
/// 64-column blocks, `sbo` = 1024 (eight key rows). The address must sit in a 1024-aligned tile.
__device__ __forceinline__ uint64_t smemDescriptor(uint32_t address, uint32_t lbo, uint32_t sbo) {
    return uint64_t((address & 0x3ffff) >> 4) | uint64_t(lbo >> 4) << 16 |
           uint64_t(sbo >> 4) << 32 | uint64_t(1) << 62;
}

__device__ __forceinline__ void wgmmaFence() {
    GATESCOPE_SM90_ASM("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmmaCommit() {
    GATESCOPE_SM90_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void wgmmaWait() {
    GATESCOPE_SM90_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving reads or writes of `r` across an asynchronous wgmma's issue or
/// wait: the registers count as rewritten here.
template <int K>
__device__ __forceinline__ void fenceRegisters(float (&r)[K]) {
#pragma unroll
    for (int i = 0; i < K; ++i)
        asm volatile("" : "+f"(r[i])::"memory");
}
template <int K>
__device__ __forceinline__ void fenceRegisters(uint32_t (&r)[K]) {
#pragma unroll
    for (int i = 0; i < K; ++i)
        asm volatile("" : "+r"(r[i])::"memory");
}

/// Orders this thread's generic-proxy shared-memory writes (cp.async included) before later
/// async-proxy reads (wgmma operands); a barrier must follow.
__device__ __forceinline__ void fenceProxyAsync() {
    GATESCOPE_SM90_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// mbarrier in shared memory (CTA scope): init by one thread, then a CTA barrier before use.
__device__ __forceinline__ void mbarrierInit(uint32_t bar, uint32_t count) {
    GATESCOPE_SM90_ASM("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count)
                       : "memory");
}

/// One arrival (release at CTA scope: this thread's earlier shared-memory writes).
__device__ __forceinline__ void mbarrierArrive(uint32_t bar) {
    GATESCOPE_SM90_ASM(
        "{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar)
        : "memory");
}

/// One arrival that also expects `bytes` more from bulk tensor copies completing on the barrier
/// (tmaLoad3d); the phase completes once both the arrivals and the bytes are in.
__device__ __forceinline__ void mbarrierArriveExpectTx(uint32_t bar, uint32_t bytes) {
    GATESCOPE_SM90_ASM(
        "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::
            "r"(bar),
        "r"(bytes)
        : "memory");
}

/// Bulk tensor copy (TMA) of the box at element coordinates (x, y, z) of `map` (in a
/// __grid_constant__ kernel parameter) into shared memory at `dst`, completing its bytes on the
/// mbarrier `bar`. Rows outside the tensor land as zeros. Issue it from one thread under a branch:
/// predicated on a per-thread value, ptxas wraps the copy in a loop over the warp's threads.
__device__ __forceinline__ void tmaLoad3d(uint32_t dst, const void* map, uint32_t bar, int x, int y,
                                          int z) {
    GATESCOPE_SM90_ASM(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(bar)
        : "memory");
}

/// Waits until the phase with parity `parity` has completed (acquire at CTA scope). The retry
/// loop is inside the asm; between wgmmas, ptxas does not serialize them for it (no C7513).
__device__ __forceinline__ void mbarrierWait(uint32_t bar, uint32_t parity) {
    GATESCOPE_SM90_ASM(
        "{\n.reg .pred done;\nwait_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra wait_%=;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

/// Named barriers (ids 1..15; 0 is __syncthreads): sync waits for `threads` arrivals in all,
/// arrive only counts this warp in.
__device__ __forceinline__ void namedBarrierSync(uint32_t id, uint32_t threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void namedBarrierArrive(uint32_t id, uint32_t threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// cp.async of 16 bytes (zero-filled when !valid) issued only when `issue` (a predicate, no
/// branch: nothing is written either).
__device__ __forceinline__ void cpAsync16If(void* dst, const void* src, bool valid, bool issue) {
    GATESCOPE_SM90_ASM(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %3, 0;\n"
        "@p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n" ::"r"(
            uint32_t(__cvta_generic_to_shared(dst))),
        "l"(src), "r"(valid ? 16 : 0), "r"(int(issue)));
}

#include "kernels/cuda/wgmma_ops.cuh"

}  // namespace gatescope::kernels::cuda::detail
