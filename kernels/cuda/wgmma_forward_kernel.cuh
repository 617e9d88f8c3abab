// sm_90a forward of the additive log-decay family (FlashAttention-3's structure on wgmma): a CTA of
// WG warpgroups owns 64 WG query rows, each warpgroup 64. Q is loaded once into 128B-swizzled
// shared memory; key/value tiles of 128 rows (64 at d = 64 below 4096 keys a row) go there through
// bulk tensor copies (TMA) issued by one thread into a ping-pong ring (below), or through cp.async
// by all threads into a double buffer at d = 64 below 4096 keys a row (one warpgroup a CTA for
// narrow windows: launchVariant). S = Q K^T takes
// both operands from shared memory; O += P V takes P from registers (the S accumulators,
// exponentiated and rounded to 16 bits) and V through the transpose bit. Within a warpgroup the
// next tile's S = Q K^T and this tile's O += P V are in flight while the softmax of the next tile
// runs. Online softmax in base 2, lazy rescale of the running max, tiles from the diagonal back.
// The power instances (launchWgmmaPower) take gated power attention's logit p log2(|scale q.k| +
// eps) in place of scale q.k (one lg2 more per score), an exact running max and the rounded row
// sum plus kPowerRowSumEps, as kernels/cpu/power_attention.h defines them.
// The Wall instances (launchWgmmaWall; one warpgroup, 64-key tiles, double buffer) take q exp(P_i -
// P_i0) once and, per earlier tile, the anchored keys times exp(P_i0 - P_last) (wgmma_wall.cuh);
// the diagonal tile from the raw keys, or pair by pair on CUDA cores when its gates fall too fast.
// Included by attention_forward_wgmma.cu only, which instantiates and launches it.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/forward_launch.h"
#include "kernels/cuda/mma_sm80.cuh"
#include "kernels/cuda/mma_sm90.cuh"
#include "kernels/cuda/tensor_map.h"
#include "kernels/cuda/wgmma_forward_schedule.cuh"
#include "kernels/cuda/wgmma_wall.cuh"

namespace gatescope::kernels::cuda::detail::wgmma {

template <class T, int D, bool Decay, Logit L, int WG, bool PP, int BN, int MinBlocks>
__global__ void __launch_bounds__(128 * WG, MinBlocks)
    wgmmaForward(FlashParams p, const __grid_constant__ KvTileMaps maps) {
    constexpr bool Power = L == Logit::Power, Wall = L == Logit::Wall;
    static_assert(!Wall || (!Decay && !PP && WG == 1 && BN == kWallTile), "Wall: one warpgroup");
    constexpr int kThreads = 128 * WG, BM = 64 * WG;
    constexpr int kNT = BN / 8;  // n8 column groups of S per thread row pair
    constexpr bool kPairedC = Decay && PP && D == 64 && L == Logit::Dot;  // sC: see storeC
    constexpr int kDT = D / 8;
    constexpr uint32_t kKVBytes = BN * D * 2;
    constexpr bool kPP = PP;
    constexpr int kS = kStages<PP, D>;
    constexpr int kAhead = kAheadOf<PP, D>;
    constexpr bool kLag = kLagV<PP, D>;
    extern __shared__ unsigned char smemRaw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
    unsigned char* sQ = smem;
    unsigned char* sK = sQ + BM * D * 2;
    unsigned char* sV = sK + kS * kKVBytes;
    // As an offset from smemRaw (not through the integer cast above), so that the compiler keeps
    // the shared window: LDS/STS instead of generic loads and stores for sC.
    float* sC = reinterpret_cast<float*>(smemRaw + (sV + kS * kKVBytes - smemRaw));
    const uint32_t barAddr = smemAddress(sC + kS * BN + 32);
    auto full = [&](int stage) { return barAddr + stage * 8; };

    const int n = static_cast<int>(p.n);
    const int window = p.window >= n ? 0 : static_cast<int>(p.window);
    const int blocks = (n + BM - 1) / BM;
    const int heads = static_cast<int>(gridDim.x / blocks);
    // Longest rows first; ping-pong: kGroup consecutive CTAs take adjacent query blocks of one
    // head (the last group of a head may be smaller).
    int head, qb;
    {
        constexpr int G = PP ? kGroup : 1;
        const int idx = static_cast<int>(blockIdx.x);
        const int full = blocks / G * G;
        if (G == 1 || idx < full * heads) {
            const int chunk = idx / (G * heads), r = idx % (G * heads);
            head = r / G;
            qb = blocks - 1 - (chunk * G + r % G);
        } else {
            const int rest = blocks - full, r = idx - full * heads;
            head = r / rest;
            qb = blocks - 1 - (full + r % rest);
        }
    }
    const int kvHead = head / p.kvGroup;
    const int i0 = qb * BM;
    const int iLast = min(i0 + BM, n) - 1;

    const T* q = static_cast<const T*>(p.q) + head * p.qHead;
    const T* k = static_cast<const T*>(p.k) + (Wall ? head / p.wall.keyGroup : kvHead) * p.kHead;
    const T* v = static_cast<const T*>(p.v) + kvHead * p.vHead;
    const float* c = Decay ? p.c + (head / p.cGroup) * p.cHead : nullptr;

    const int firstKey = window > 0 ? max(i0 - window + 1, 0) : 0;
    const int kStart = firstKey / BN * BN;
    const int tiles = (iLast - kStart) / BN + 1;
    auto tileStart = [&](int t) { return kStart + (tiles - 1 - t) * BN; };
    auto loadK = [&](int t) {
        loadTile<T, D, BN, kThreads>(sK + (t % kS) * kKVBytes, k, p.kRow, tileStart(t), n);
    };
    // Decay: the softmax reads C_j = (c_j - c_i0) log2(e) per key from shared memory, computed
    // once per tile by threads < BN. Relative to the block's first row, the differences stay small
    // wherever probabilities do not underflow, so precision holds at any N (c itself grows large).
    const float cRef = Decay ? c[i0] : 0.f;
    // Wall: P at the anchor row i0 and at the last key of a tile, on the thread's 8 channels (those
    // of every chunk its copies write: rows wRow + it kRowStepW, channels wCh .. wCh + 7). pTile:
    // the diagonal tile's last key; pNext: the next tile's, fetched an iteration ahead.
    constexpr int kChunksW = D / 8, kRowStepW = kThreads / kChunksW;
    const int wRow = threadIdx.x / kChunksW, wCh = (threadIdx.x % kChunksW) * 8;
    const float* P = Wall ? p.wall.p + (head / p.cGroup) * p.wall.pHead : nullptr;
    float pAnchor[8], pTile[8], pNext[8];
    bool slowDiagonal = false;
    if constexpr (Wall) {
        loadGates8(P, p.wall.pRow, i0, wCh, p.wall.gated, pAnchor);
        loadGates8(P, p.wall.pRow, iLast, wCh, p.wall.gated, pTile);
        loadGates8(P, p.wall.pRow, i0 - 1, wCh, i0 > 0 ? p.wall.gated : 0, pNext);
    }
    const int wg = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const int row0 = i0 + wg * 64 + warp * 16 + g;  // thread rows: row0 (h = 0), row0 + 8 (h = 1)
    // c_i of the thread's rows, for the log-sum-exp only: loaded at the start of the last
    // iteration (not live through the loop), used after its MMAs.
    float cI[2];
    // Threads >= BN and keys past n get 0, a value nobody reads (a select on cRef made every
    // fetch wait for cRef's load).
    auto fetchC = [&](int t) {
        const int j = tileStart(t) + threadIdx.x;
        return Decay && threadIdx.x < BN && j < n ? c[j] : 0.f;
    };
    // c of a tile fetched an iteration before the one that stores it (its load's latency exceeds
    // an iteration's softmax): ping-pong, tile t + kAhead in iteration t - 1; double buffer, tile
    // t + 2 in iteration t - 1 (or the prologue).
    float cPre = 0.f;
    // d = 64: laid out so that one 16-byte load gives a thread the C_j of its columns in two
    // adjacent n8 groups (key j = 8 nt + 2 tq + e sits at 16 (nt / 2) + 4 tq + 2 (nt % 2) + e):
    // half the shared loads, whose queue (MIO throttle, short scoreboard) stalled the FoX softmax
    // (ncu, d = 64, 16k keys; FoX 2-6% faster from 4k keys). The ping-pong with the Dot logit
    // only: elsewhere (d = 128, power, the short and windowed variants) it spilled more or ran
    // 1-3% slower, and those keep key order and their former code.
    // Branch-free (threads >= BN write a scratch slot): a branch between a wgmma wait and the
    // next issue makes ptxas serialize the wgmmas (C7513).
    auto storeC = [&](int stage, float cj) {
        if constexpr (kPairedC) {
            const int j = threadIdx.x;
            const int at = (j / 16) * 16 + ((j % 8) / 2) * 4 + ((j / 8) % 2) * 2 + j % 2;
            const int slot = j < BN ? stage * BN + at : kS * BN + j % 32;
            sC[slot] = (cj - cRef) * kLog2e;
        } else {
            const int slot =
                threadIdx.x < BN ? stage * BN + threadIdx.x : kS * BN + threadIdx.x % 32;
            sC[slot] = (cj - cRef) * kLog2e;
        }
    };
    auto loadV = [&](int t, int stage) {
        loadTile<T, D, BN, kThreads>(sV + stage * kKVBytes, v, p.vRow, tileStart(t), n);
    };
    // Ping-pong: when `issue` (thread 0), fills stage `stage` with K_x (x < tiles) and the V tile
    // that goes with it (V_{x-1} with V lagging, else V_x) through bulk tensor copies, one per
    // 64-column block, completing on the stage's full barrier. (Under a branch, not predicated:
    // ptxas loops a predicated copy over the warp's threads, in every warp: FoX at 1k keys 4%
    // slower than cp.async by all threads.)
    auto tmaTile = [&](const TileMap& m, unsigned char* tile, int cb, int row, uint32_t bar) {
        tmaLoad3d(smemAddress(tile) + cb * BN * 128, &m.map, bar, cb * 64,
                  m.headsInner ? kvHead : row, m.headsInner ? row : kvHead);
    };
    auto tmaStage = [&](int stage, int x, bool issue) {
        if (!issue) return;
        const int vx = kLag ? x - 1 : x;
        const bool withK = x < tiles, withV = vx >= 0 && vx < tiles;
        mbarrierArriveExpectTx(full(stage), (int(withK) + int(withV)) * kKVBytes);
#pragma unroll
        for (int cb = 0; cb < D / 64; ++cb) {
            if (withK) tmaTile(maps.k, sK + stage * kKVBytes, cb, tileStart(x), full(stage));
            if (withV) tmaTile(maps.v, sV + stage * kKVBytes, cb, tileStart(vx), full(stage));
        }
    };

    if constexpr (kPP) {
        // Tile x (K_x, V_x, C_x) is complete in stage x % kS once thread 0's bulk copies have
        // landed (its expect_tx arrival) and, with decay, every thread has stored its C_x. The c of
        // the first kAhead + 1 tiles are fetched first, all in flight together, and stored after
        // every copy is issued (fetched and stored tile by tile, each tile's copies waited for the
        // previous tile's global load: FoX at 4096 keys 286 -> 300 TFLOP/s on an H100).
        float cFirst[kAhead];
#pragma unroll
        for (int x = 0; x < kAhead; ++x)
            cFirst[x] = fetchC(min(x, tiles - 1));
        if (Decay) cPre = fetchC(min(kAhead, tiles - 1));
        if (threadIdx.x == 0) {
            for (int st = 0; st < kS; ++st)
                mbarrierInit(barAddr + st * 8, Decay ? kThreads + 1 : 1);
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
        loadTile<T, D, BM, kThreads>(sQ, q, p.qRow, i0, n);
        cpAsyncCommit();
        // With V lagging, stage x holds K_x (when x < tiles) and V_{x - 1}: stage 1 always holds
        // V_0.
#pragma unroll
        for (int x = 0; x < kAhead; ++x)
            tmaStage(x, x, threadIdx.x == 0 && (kLag || x < tiles));
        if (Decay) {
#pragma unroll
            for (int x = 0; x < kAhead; ++x) {
                if (kLag || x < tiles) {
                    storeC(x, cFirst[x]);
                    mbarrierArrive(full(x));
                }
            }
        }
    } else {
        // Commit groups: {Q, K_0}, then per iteration t one group {K_{t+2}, V_{t+1}} issued at its
        // start (iteration t consumes K_{t+1} and V_t; the prologue issues {K_1, V_0}).
        // c of tiles 0 and 1 fetched together, ahead of the copies (unconditional: a load under a
        // branch was issued only after the first one's use, two latencies in a row).
        const float c0 = fetchC(0), c1 = fetchC(min(1, tiles - 1));
        if (Decay) cPre = fetchC(min(2, tiles - 1));
        loadTile<T, D, BM, kThreads>(sQ, q, p.qRow, i0, n);
        if constexpr (Wall)  // the diagonal tile from the keys themselves (rescaled below)
            loadTile<T, D, BN, kThreads>(
                sK, static_cast<const T*>(p.wall.kRaw) + kvHead * p.wall.kRawHead, p.wall.kRawRow,
                tileStart(0), n);
        else
            loadK(0);
        cpAsyncCommit();
        if (tiles > 1) loadK(1);
        loadV(0, 0);
        cpAsyncCommit();
        if (Decay) {
            storeC(0, c0);
            storeC(1, c1);  // with one tile, stage 1 is never read
        }
    }

    const int wgRow0 = i0 + wg * 64;
    const int wgRowLast = min(wgRow0 + 64, n) - 1;

    // Softmax units: v = q.k raw (no decay; log2 units after multiplying by f = scale log2(e)),
    // or v = (scale q.k - (c_j - c_i0)) log2(e) (decay; f = 1); the logit in log2 units is
    // v f + (c_i - c_i0) log2(e). m is the running max of v.
    float m[2], l[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        m[h] = kNegInf;
        l[h] = 0.f;
    }
    float acc[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i)
        acc[i] = 0.f;
    float s[BN / 2];
    uint32_t pa[BN / 2 / 2];  // P as the A operand: 4 registers per k16 step

    // Power: v = p log2(|scale q.k| + eps) - (G_j - G_i0) log2(e), f = 1, and the running max is
    // exact (no lazy rescale), so that l + rowSumEps is the CPU kernel's l_i.
    const float f = Decay || Power ? 1.f : p.scaleLog2;
    const float scale2 = p.scaleLog2;
    const float lazyThreshold = Power ? 0.f : Decay ? kLazyRescale : kLazyRescale / p.scaleLog2;
    const PowerScore power = p.power;

    const uint32_t qAddr = smemAddress(sQ) + wg * 64 * 128;
    const uint32_t kAddr = smemAddress(sK), vAddr = smemAddress(sV);
    const uint64_t qDesc = smemDescriptor(qAddr, 16, 1024);

    auto issueS = [&](int stage) {
        const uint64_t kDesc = smemDescriptor(kAddr + stage * kKVBytes, 16, 1024);
#pragma unroll
        for (int ks = 0; ks < D / 16; ++ks) {
            const uint32_t qOff = ((ks / 4) * BM * 128 + (ks % 4) * 32) >> 4;
            const uint32_t kOff = ((ks / 4) * BN * 128 + (ks % 4) * 32) >> 4;
            wgmmaSS<BN, T>(s, qDesc + qOff, kDesc + kOff, ks > 0);
        }
        wgmmaCommit();
    };
    auto issuePV = [&](int stage) {
        // Column blocks of 64 sit BN * 128 bytes apart.
        const uint64_t vDesc = smemDescriptor(vAddr + stage * kKVBytes, BN * 128, 1024);
#pragma unroll
        for (int ks = 0; ks < BN / 16; ++ks)
            wgmmaRS<D, T>(acc, pa + 4 * ks, vDesc + ((ks * 16 * 128) >> 4));
        wgmmaCommit();
    };

    // Masks, biases and exponentiates S of tile t (S landed) into pa and l; returns whether the
    // running max moved (then O must be multiplied by alpha once the pending P V is done).
    float alpha[2];
    auto softmax = [&](int t, int stage, uint32_t(&pOut)[BN / 4]) -> bool {
        const int j0 = tileStart(t);
        const bool mask = j0 + BN - 1 > wgRow0 || (window > 0 && j0 < wgRowLast - window + 1);
        const float* tC = sC + stage * BN;
        // d = 64: four partial maxima and sums per row (short dependency chains).
        constexpr int kPart = D == 64 ? 4 : 1;
        float tileMaxP[2][kPart];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int q = 0; q < kPart; ++q)
                tileMaxP[h][q] = kNegInf;
        auto bias = [&](auto masked) {
            [[maybe_unused]] float4 c4;  // kPairedC: the C_j of groups nt and nt + 1
#pragma unroll
            for (int nt = 0; nt < kNT; ++nt) {
                float2 cc = make_float2(0.f, 0.f);
                if constexpr (kPairedC) {
                    if (nt % 2 == 0)
                        c4 = *reinterpret_cast<const float4*>(tC + (nt / 2) * 16 + 4 * tq);
                    cc = nt % 2 ? make_float2(c4.z, c4.w) : make_float2(c4.x, c4.y);
                } else {
                    if (Decay) cc = *reinterpret_cast<const float2*>(tC + nt * 8 + 2 * tq);
                }
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int h = e / 2;
                    float x = s[nt * 4 + e];
                    if constexpr (Power)
                        x = fmaf(power.degree, __log2f(fabsf(x * power.scale) + power.eps),
                                 -((e & 1) ? cc.y : cc.x));
                    else if (Decay)
                        x = fmaf(x, scale2, -((e & 1) ? cc.y : cc.x));
                    if constexpr (decltype(masked)::value) {
                        const int j = j0 + nt * 8 + 2 * tq + (e & 1), i = row0 + 8 * h;
                        const bool ok = j <= i && (window <= 0 || j > i - window);
                        x = ok ? x : kNegInf;
                    }
                    s[nt * 4 + e] = x;
                    tileMaxP[h][nt % kPart] = fmaxf(tileMaxP[h][nt % kPart], x);
                }
            }
        };
        if (mask)
            bias(std::true_type{});
        else
            bias(std::false_type{});
        bool grow = false;
        float tileMax[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            tileMax[h] = tileMaxP[h][0];
#pragma unroll
            for (int q = 1; q < kPart; ++q)
                tileMax[h] = fmaxf(tileMax[h], tileMaxP[h][q]);
#pragma unroll
            for (int off = 1; off < 4; off <<= 1)
                tileMax[h] = fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], off));
            grow = grow || tileMax[h] > m[h] + lazyThreshold;
        }
        const bool any = __any_sync(0xffffffffu, grow);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            // Selects, not a branch (C7513, as above).
            const float mNew = any ? fmaxf(m[h], tileMax[h]) : m[h];
            alpha[h] = mNew == kNegInf ? 1.f : fastExp2((m[h] - mNew) * f);
            m[h] = mNew;
            l[h] *= alpha[h];
            const float shift = m[h] == kNegInf ? 0.f : m[h] * f;
            float lp[kPart];
#pragma unroll
            for (int q = 0; q < kPart; ++q)
                lp[q] = 0.f;
#pragma unroll
            for (int nt = 0; nt < kNT; ++nt) {
                float p0 = fastExp2(fmaf(s[nt * 4 + 2 * h], f, -shift));
                float p1 = fastExp2(fmaf(s[nt * 4 + 2 * h + 1], f, -shift));
                if constexpr (Power) {
                    // The row sum adds the rounded weights that P V multiplies (the CPU
                    // kernel's roundProbsToBf16).
                    const uint32_t pair = packPair<T>(p0, p1);
                    p0 = unpackLo<T>(pair);
                    p1 = unpackHi<T>(pair);
                }
                s[nt * 4 + 2 * h] = p0;
                s[nt * 4 + 2 * h + 1] = p1;
                if constexpr (kPart == 1)
                    l[h] += p0 + p1;  // d = 128: one chain, as before
                else
                    lp[nt % kPart] += p0 + p1;
            }
            if constexpr (kPart > 1) {
#pragma unroll
                for (int q = 0; q < kPart; ++q)
                    l[h] += lp[q];
            }
        }
        // n8 groups 2ks, 2ks + 1 of S are the A fragment of k16 step ks.
#pragma unroll
        for (int ks = 0; ks < BN / 16; ++ks) {
            pOut[4 * ks + 0] = packPair<T>(s[8 * ks + 0], s[8 * ks + 1]);
            pOut[4 * ks + 1] = packPair<T>(s[8 * ks + 2], s[8 * ks + 3]);
            pOut[4 * ks + 2] = packPair<T>(s[8 * ks + 4], s[8 * ks + 5]);
            pOut[4 * ks + 3] = packPair<T>(s[8 * ks + 6], s[8 * ks + 7]);
        }
        return any;
    };

    if constexpr (kPP) {
        cpAsyncWait<0>();  // Q
        fenceProxyAsync();
        __syncthreads();
        mbarrierWait(full(0), 0);
    } else {
        cpAsyncWait<1>();
        if constexpr (Wall) {
            // q~ = q exp(P_i - P_i0) (<= 1), once, and the diagonal tile's keys k exp(P_i0 - P_j)
            // (>= 1, bounded by the tile's fall; past kWallDiagonalSpan the tile is summed pair
            // by pair below instead). Its keys are its rows: the same chunks and P.
            static_assert(BM == BN);
            float pRow[8], fq[8], fk[8];
#pragma unroll
            for (int it = 0; it < BM / kRowStepW; ++it) {
                const int r = wRow + it * kRowStepW;
                loadGates8(P, p.wall.pRow, min(i0 + r, n - 1), wCh, p.wall.gated, pRow);
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    fq[e] = fastExp2((pRow[e] - pAnchor[e]) * kLog2e);
                    fk[e] = fastExp2(fminf(pAnchor[e] - pRow[e], kWallDiagonalSpan) * kLog2e);
                }
                scaleChunk(sQ + swizzledOffset(r, wCh / 8, BM), fq);
                scaleChunk(sK + swizzledOffset(r, wCh / 8, BN), fk);
            }
            float fall = 0.f;
#pragma unroll
            for (int e = 0; e < 8; ++e)
                fall = fmaxf(fall, pAnchor[e] - pTile[e]);
            fenceProxyAsync();
            slowDiagonal = __syncthreads_or(fall > kWallDiagonalSpan) != 0;
        } else {
            fenceProxyAsync();
            __syncthreads();
        }
    }
    // Ping-pong: warpgroup w waits at named barrier 1 + w before issuing its MMAs and, once they
    // are issued, lets the next one go (1 + (w + 1) % WG); the last one opens the first round,
    // before the first tile (the turns order the MMAs of the loop only).
    const uint32_t barMine = 1 + wg, barNext = 1 + (wg + 1) % WG;
    if (kPP && wg == WG - 1) namedBarrierArrive(1, 256);
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        s[i] = 0.f;
    fenceRegisters(s);
    wgmmaFence();
    issueS(0);
    wgmmaWait<0>();
    fenceRegisters(s);
    if (Wall && slowDiagonal)
        wallExactDiagonal<T, D, BN>(p, q,
                                    static_cast<const T*>(p.wall.kRaw) + kvHead * p.wall.kRawHead,
                                    P, tileStart(0), row0, tq, s);
    softmax(0, 0, pa);  // the first tile finds O = 0: no rescale

    // One iteration: S of tile t + 1 (when there is one) and O += P_t V_t in flight together,
    // then the softmax of tile t + 1. The last iteration is a separate instance (HasNext false)
    // so that no branch sits between wgmma.fence and the wgmmas.
    auto nextStage = [](int x) { return x + 1 == kS ? 0 : x + 1; };
    // st: the stage of tile t; ph: the phase parity of tile t + 1's full barrier.
    int st = 0;
    uint32_t ph = 0;

    auto iteration = [&](int t, auto hasNext) {
        constexpr bool kNext = decltype(hasNext)::value;
        // Stages of tiles t and t + 1 (double buffer: t % 2 stays on the uniform datapath).
        const int st0 = kPP ? st : t % kS;
        const int st1 = kPP ? nextStage(st) : (t + 1) % kS;
        float cNext = 0.f;
        if constexpr (!kNext) {
#pragma unroll
            for (int h = 0; h < 2; ++h)
                cI[h] = Decay ? c[min(row0 + 8 * h, n - 1)] : 0.f;
        }
        if constexpr (kPP) {
            // V_t landed with K_t (waited for in iteration t - 1 or the prologue), or with V
            // lagging, with K_{t+1}.
            // With V lagging, the last iteration also waits: V_t is in stage t + 1.
            if (kNext || kLag) mbarrierWait(full(st1), ph);
            cNext = cPre;
            cPre = Decay ? fetchC(min(t + kAhead + 1, tiles - 1)) : 0.f;
            namedBarrierSync(barMine, 256);
        } else {
            cpAsyncWait<0>();
            if constexpr (Wall && kNext) {
                // K_{t+1} (this thread's chunks, landed): anchored keys times exp(P_i0 - P_last)
                // <= 1, so that q~ . k~ = q k exp(P_i - P_j). Then P of tile t + 2's last key.
                unsigned char* tile = sK + st1 * kKVBytes;
                // bf16 factors and products (HMUL2): against fp32 products, the same errors
                // (rel. L2 3.29e-3 vs 3.25e-3) and 2-7% faster (H200).
                __nv_bfloat162 g[4];
                tileFactors(pAnchor, pNext, g);
#pragma unroll
                for (int it = 0; it < BN / kRowStepW; ++it)
                    scaleChunkBf16(tile + swizzledOffset(wRow + it * kRowStepW, wCh / 8, BN), g);
                loadGates8(P, p.wall.pRow, tileStart(min(t + 2, tiles - 1)) + BN - 1, wCh,
                           p.wall.gated, pNext);
            }
            fenceProxyAsync();
            // After this barrier K_{t+1} and V_t are visible and every warpgroup is done with
            // iteration t - 1, whose stages the loads below reuse.
            __syncthreads();
            if (t + 2 < tiles) loadK(t + 2);
            if (kNext) loadV(t + 1, (t + 1) % kS);
            cpAsyncCommit();
            // c of tile t + 2 (fetched an iteration ago) is stored at the end of this iteration;
            // tile t + 3's is fetched now. None in the last iteration, which has no tile to come.
            if constexpr (kNext) {
                cNext = cPre;
                if (Decay) cPre = fetchC(min(t + 3, tiles - 1));
            }
        }
        fenceRegisters(acc);
        fenceRegisters(pa);
        fenceRegisters(s);
        wgmmaFence();
        if constexpr (kNext) issueS(st1);
        issuePV(kLag ? st1 : st0);
        if constexpr (kPP) {
            if constexpr (kNext) namedBarrierArrive(barNext, 256);
            // Stage (t + kAhead) % kS was last read by the MMAs of iteration t - 2. Thread 0 (of
            // warpgroup 0, whose turn comes first) refills it once past the named barrier above,
            // which warpgroup 1 opened after issuing its MMAs of iteration t - 1, so after its
            // wait for those of t - 2.
            const int stL = st0 + kAhead >= kS ? st0 + kAhead - kS : st0 + kAhead;
            tmaStage(stL, t + kAhead, threadIdx.x == 0 && t + kAhead < tiles + (kLag ? 1 : 0));
            // Branch-free (past the last tile this writes a consumed stage and arrives on a
            // barrier nobody waits for); here rather than after the waits, where ptxas serializes
            // the wgmmas (C7513).
            if (Decay) {
                storeC(stL, cNext);
                mbarrierArrive(full(stL));
            }
        }
        if constexpr (kNext) {
            wgmmaWait<1>();
            fenceRegisters(s);
            // pa still feeds the P V in flight: the new P moves into pa only after its wait.
            uint32_t paNext[BN / 4];
            softmax(t + 1, st1, paNext);
            wgmmaWait<0>();
            fenceRegisters(acc);
            fenceRegisters(pa);
#pragma unroll
            for (int i = 0; i < BN / 4; ++i)
                pa[i] = paNext[i];
                // Unconditional (alpha is 1 unless the max moved): a branch here makes ptxas
                // serialize the wgmmas (C7513).
#pragma unroll
            for (int dt = 0; dt < D / 8; ++dt) {
                acc[dt * 4 + 0] *= alpha[0];
                acc[dt * 4 + 1] *= alpha[0];
                acc[dt * 4 + 2] *= alpha[1];
                acc[dt * 4 + 3] *= alpha[1];
            }
        } else {
            wgmmaWait<0>();
            fenceRegisters(acc);
            // After the last MMAs (no branch): every turn but the last round's final one.
            if (kPP && wg != WG - 1) namedBarrierArrive(barNext, 256);
        }
        if constexpr (!kPP) {
            // Stage t % 2 of sC (tile t) was last read by softmax(t) in iteration t - 1.
            // (Past the last tile it rewrites a consumed stage.)
            if (Decay && kNext) storeC(st0, cNext);
        }
        ph ^= nextStage(st1) == 0 ? 1u : 0u;
        st = st1;
    };
    for (int t = 0; t + 1 < tiles; ++t)
        iteration(t, std::true_type{});
    iteration(tiles - 1, std::false_type{});

    T* out = static_cast<T*>(p.out) + head * p.oHead;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float sum = l[h];
#pragma unroll
        for (int off = 1; off < 4; off <<= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        const int i = row0 + 8 * h;
        if (i >= n) continue;
        if constexpr (Power) sum += power.rowSumEps;
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
        for (int dt = 0; dt < kDT; ++dt) {
            const int col = dt * 8 + 2 * tq;
            *reinterpret_cast<uint32_t*>(out + int64_t(i) * p.oRow + col) =
                packPair<T>(acc[dt * 4 + 2 * h] * inv, acc[dt * 4 + 2 * h + 1] * inv);
        }
        if (p.lse && tq == 0)
            p.lse[head * p.lseHead + i] =
                (m[h] * f + (cI[h] - cRef) * kLog2e + __log2f(sum)) * kLn2;
    }
}

}  // namespace gatescope::kernels::cuda::detail::wgmma
