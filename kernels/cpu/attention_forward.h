// Blockwise (FlashAttention-style) CPU forward for the additive log-decay family: online softmax
// over key blocks, the decay bias applied per tile from the cumulative log-gates. Memory is
// O(block x (block + dk + dv)) per worker; no N x N buffer exists at any point.
#pragma once

#include <cstdint>

#include "kernels/cpu/head_factors.h"

namespace gatescope::kernels {

struct ForwardOptions {
    int blockSize = 128;  ///< query and key block edge (clamped to [1, min(n, 1024)])
    /// Emulate bf16 attention kernels: round the probabilities to bfloat16 before P.V (fp32
    /// accumulation otherwise). Off for the float32 path.
    bool roundProbsToBf16 = false;
};

/// Computes out[i] = sum_j A[i,j] v_j (row-major [n, dv], stride dv) and lse[i] for one head.
/// `head.lse` is ignored. Pure function of its inputs; call from any thread (it does not spawn).
/// Throws Cancelled every few key blocks when the thread's cancellation test (cancel.h) says so.
/// Preconditions (checkHead in kernels/cpu/head_check.h verifies them): n >= 0, dk >= 1, q and
/// k (and v when dv > 0) point at n rows; out holds n * dv floats, lse n floats. With dv == 0
/// only lse is computed (v and out may be null). Numerics: fp32 throughout, logits
/// scale * q.k + (c_i - c_j), online softmax over key blocks; lse is the natural log.
void attentionForward(const AdditiveDecayHead& head, float* out, float* lse,
                      const ForwardOptions& options = {});

/// attentionForward for `count` heads: outs[h] and lses[h] receive head h. The (head, query
/// block) pairs are spread over up to `threads` workers (0: hardware concurrency), the most
/// expensive blocks first; results are bit-identical to calling attentionForward per head.
/// Spawns its threads and joins them before returning; memory O(threads x block x (block + dk +
/// dv)).
void attentionForwardHeads(const AdditiveDecayHead* heads, int count, float* const* outs,
                           float* const* lses, const ForwardOptions& options = {}, int threads = 0);

}  // namespace gatescope::kernels
