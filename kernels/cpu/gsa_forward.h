// Chunked CPU forward of Gated Slot Attention (Zhang et al. 2024, fla `chunk_gsa`): two gated
// linear-attention passes over an m-slot memory, carried across chunks of `chunkSize` tokens.
// Per kv head the only state is K~ [m, dk] and V~ [m, dv]; memory is O(chunk^2 m + m (dk + dv))
// per worker, never O(N^2). Exact math (G = cumsum of log alpha, s = 1 - alpha, i <= t):
//   o'_{t,j} = scale sum_i (q_t . k_i) s_{i,j} exp(G_{t,j} - G_{i,j})   (slot scores)
//   p_t      = softmax_j(o'_t)                                            (slot probabilities)
//   o_t      = sum_i A_{t,i} v_i,  A_{t,i} = sum_j p_{t,j} s_{i,j} exp(G_{t,j} - G_{i,j})
// Decay factors are formed only from differences of G inside a chunk (all <= 0 for log alpha <= 0),
// so no exp() of a large cumulative sum is ever taken.
#pragma once

#include <cstdint>

namespace gatescope::kernels {

/// One layer's inputs, head-major and contiguous. Query head h reads kv head h / (heads / kvHeads)
/// (fla repeats kv heads with `(h g)`, so groups are consecutive query heads). Not owned.
struct GsaForwardInput {
    int64_t n = 0;  ///< tokens
    int heads = 0, kvHeads = 0;
    int dk = 0, dv = 0, slots = 0;
    const float* q = nullptr;          ///< [heads, n, dk], feature map applied
    const float* k = nullptr;          ///< [kvHeads, n, dk]
    const float* v = nullptr;          ///< [kvHeads, n, dv]
    const float* logForget = nullptr;  ///< [kvHeads, n, slots]: log alpha (natural log, <= 0)
    /// [kvHeads, n, slots]: s, normally 1 - alpha (passed in because the official code rounds it
    /// in the activation dtype).
    const float* write = nullptr;
    float scale = 1.0f;  ///< multiplies q.k; the official GSA layer uses 1
};

/// Where results go. `out` is required; every other pointer may be null (not computed/stored).
struct GsaForwardOutput {
    float* out = nullptr;         ///< [heads, n, dv]
    float* slotScores = nullptr;  ///< [heads, n, slots]: o' before the slot softmax
    float* slotProbs = nullptr;   ///< [heads, n, slots]: p
    float* lse = nullptr;         ///< [heads, n]: log-sum-exp of o' over slots (p = exp(o' - lse))
    /// [kvHeads, n, slots]: G, accumulated in double, rounded once to float.
    float* logForgetCumsum = nullptr;
    /// [kvHeads, chunks, slots, dk] and [kvHeads, chunks, slots, dv]: K~ and V~ after the last
    /// token of each chunk (chunks = ceil(n / chunkSize); the last entry is the final state).
    float* stateK = nullptr;
    float* stateV = nullptr;
};

struct GsaForwardOptions {
    int chunkSize = 64;
    int threads = 0;  ///< workers over kv heads; 0: hardware concurrency
    /// Emulate bf16 kernels: round p to bfloat16 before the second pass (fp32 accumulation).
    bool roundProbsToBf16 = false;
};

/// Number of chunk-boundary states gsaForward writes for `n` tokens.
inline int64_t gsaChunkCount(int64_t n, int chunkSize) {
    return (n + chunkSize - 1) / chunkSize;
}

/// Runs the two-pass forward. Returns false (writing nothing) when the sizes are inconsistent:
/// n, heads, kvHeads, dk, dv, slots or chunkSize < 1, heads not a multiple of kvHeads, or a
/// required pointer missing. Thread-safe for distinct outputs; blocks until done. Throws
/// Cancelled (kernels/cpu/cancel.h) between chunks when the thread's cancellation test says so.
bool gsaForward(const GsaForwardInput& input, const GsaForwardOutput& output,
                const GsaForwardOptions& options = {});

}  // namespace gatescope::kernels
