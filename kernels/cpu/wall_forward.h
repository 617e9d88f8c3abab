// Blockwise CPU forward for Wall Attention: online softmax over 64-token key blocks whose gated
// dot products come from wallScoreBlock (per-tile anchors, nothing overflows at any length).
// Memory is O(64 x (64 + dk + dv)) per worker; no N x N buffer exists at any point.
#pragma once

#include "kernels/cpu/attention_forward.h"
#include "kernels/cpu/wall_head.h"

namespace gatescope::kernels {

/// Computes out[i] = sum_j A[i,j] v_j (row-major [n, dv]) and lse[i] (natural log, the sink
/// included) for one head, with every option of WallHead (window, scalar gate, sink, packed
/// documents); `head.lse` is ignored. Key blocks wholly before a block's first allowed key are
/// skipped, so a window of w costs O(n w) rather than O(n^2). options.blockSize is ignored
/// (blocks are kWallSubBlock = 64 keys, the anchor granularity); options.roundProbsToBf16 rounds
/// probabilities before P.V as bf16 kernels do. Pure function of its inputs; call from any thread
/// (it does not spawn). Throws Cancelled every few key blocks when the thread's cancellation test
/// (cancel.h) says so. Preconditions: n >= 0, 0 < dk, 0 <= gatedChannels <= dk, dv > 0, P
/// non-increasing inside each document, window >= 0, document starts sorted with the first 0.
void wallForward(const WallHead& head, float* out, float* lse, const ForwardOptions& options = {});

/// wallForward for `count` heads on up to `threads` workers (0: hardware count); results are
/// bit-identical to calling wallForward per head.
void wallForwardHeads(const WallHead* heads, int count, float* const* outs, float* const* lses,
                      const ForwardOptions& options = {}, int threads = 0);

}  // namespace gatescope::kernels
