// The norm of power attention's recurrent state at every position, without materializing the state
// (D x dv numbers per position) or any N x N matrix.
//
// The recurrent form (spec power-attention.md §1.4, §7.5) keeps, per head,
//   S_t = g_t S_{t-1} + v_t phi(k_t)^T   (dv x D),    z_t = g_t z_{t-1} + phi(k_t)   (D),
// with phi the symmetric power embedding, phi(a).phi(b) = (a.b)^p, keys unscaled (the scale enters
// on the query side). Their squared Frobenius norms obey the exact per-token recurrences
//   |S_t|^2 = g_t^2 |S_{t-1}|^2 + 2 sum_{j<t} e^{G_t-G_j} (k_j.k_t)^p (v_j.v_t) + |v_t|^2
//   (k_t.k_t)^p |z_t|^2 = g_t^2 |z_{t-1}|^2 + 2 sum_{j<t} e^{G_t-G_j} (k_j.k_t)^p           +
//   (k_t.k_t)^p
// where g_t = e^{G_t - G_{t-1}} and the sums are the state read with the key as the query. Those
// reads are computed blockwise in float64.
#pragma once

#include <cstdint>

#include "kernels/cpu/power_attention.h"

namespace gatescope::kernels {

enum class StateNormMethod {
    Auto,           ///< ExplicitState when p = 2 and it is cheaper, else Quadratic
    Quadratic,      ///< memory O(block (dk + dv + block))
    ExplicitState,  ///< p = 2 only (Quadratic is used otherwise); memory O(D dv)
};

/// Writes |S_t|_F (stateNorm) and, when normalizerNorm is not null, |z_t|_2 for t in [0, n).
/// Uses head.k, head.v, head.logDecayCumsum and head.degree (q, scale and eps play no part).
/// Pure function of its inputs; does not spawn threads. Throws Cancelled between blocks when the
/// thread's cancellation test (cancel.h) says so.
void powerStateNorm(const PowerHead& head, float* stateNorm, float* normalizerNorm = nullptr,
                    StateNormMethod method = StateNormMethod::Auto, int blockSize = 64);

/// The method Auto picks for `head`.
StateNormMethod chooseStateNormMethod(const PowerHead& head);

}  // namespace gatescope::kernels
