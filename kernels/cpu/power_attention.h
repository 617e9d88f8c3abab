// Blockwise CPU forward for gated power attention (Manifest AI's power_full, attention form), and
// the norm of its recurrent state per position. Memory is O(block x (dk + dv)) per call; no N x N
// buffer exists at any point.
//
// For one head, with G the cumulative log gate (G_i = sum_{t<=i} log g_t) and p even:
//   s[i,j] = p log(|scale q_i.k_j| + eps) + G_i - G_j   for j <= i (the package's log space)
//   m_i = max_j s[i,j],  l_i = sum_j exp(s[i,j] - m_i) + kPowerRowSumEps
//   out_i = sum_j exp(s[i,j] - m_i) v_j / l_i,  logNormalizer_i = m_i + log l_i
// so A[i,j] = exp(s[i,j] - logNormalizer_i) is exactly the package's normalized weight P / l.
#pragma once

#include <cstdint>

namespace gatescope::kernels {

/// The package adds 1e-6 to the rowmax-relative row sum before dividing (power_attention
/// _attention/reference.py and the Triton kernel).
inline constexpr double kPowerRowSumEps = 1e-6;
/// The package's epsilon inside the log: p log(|scale q.k| + 1e-7).
inline constexpr float kPowerLogEps = 1e-7f;

/// Non-owning view of one power-attention head's O(N) factors. Row r of q is at q + r * qStride
/// (likewise k, v). Pointers must stay valid for the duration of the call that receives the view.
struct PowerHead {
    int64_t n = 0;  ///< sequence length
    int dk = 0;     ///< query/key dimension
    int dv = 0;     ///< value dimension (0 when v is not needed)
    const float* q = nullptr;
    const float* k = nullptr;
    const float* v = nullptr;
    int64_t qStride = 0, kStride = 0, vStride = 0;  ///< elements between rows; 0 means dk (dv)
    /// Cumulative log gate G (natural log), length n; nullptr means ungated (G = 0).
    const float* logDecayCumsum = nullptr;
    float scale = 1.0f;  ///< multiplies q.k before the power (1/sqrt(dk) in the package)
    int degree = 2;      ///< p; even (the package asserts it)
    float eps = kPowerLogEps;
    /// log Z_i (natural log) as the forward produces it, length n. Needed to recompute normalized
    /// attention tiles; ignored by the forward.
    const float* logNormalizer = nullptr;

    int64_t qRow() const { return qStride ? qStride : dk; }
    int64_t kRow() const { return kStride ? kStride : dk; }
    int64_t vRow() const { return vStride ? vStride : dv; }
    float cumsum(int64_t i) const { return logDecayCumsum ? logDecayCumsum[i] : 0.0f; }
    /// p log(|scale x| + eps): the score of a raw dot product x in the package's log space.
    float logScore(float dot) const;
};

struct PowerForwardOptions {
    int blockSize = 64;  ///< query and key block edge
    /// Emulate bf16 kernels: round the weights exp(s - m) to bfloat16 before the row sum and P.V
    /// (the package casts P to V's dtype). Off for the float32 path.
    bool roundProbsToBf16 = false;
};

/// Computes out (row-major [n, dv]) and logNormalizer [n] for one head. `head.logNormalizer` is
/// ignored. Pure function of its inputs; call from any thread (it does not spawn). Throws
/// Cancelled every few key blocks when the thread's cancellation test (cancel.h) says so.
/// Preconditions (checked by callers): n >= 0, dk > 0, dv > 0, degree even and > 0.
void powerAttentionForward(const PowerHead& head, float* out, float* logNormalizer,
                           const PowerForwardOptions& options = {});

/// Runs powerAttentionForward for `count` heads on up to `threads` workers (0: hardware count).
void powerAttentionForwardHeads(const PowerHead* heads, int count, float* const* outs,
                                float* const* logNormalizers,
                                const PowerForwardOptions& options = {}, int threads = 0);

}  // namespace gatescope::kernels
