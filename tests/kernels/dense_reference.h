// Float64 references for the additive-decay kernels, written straight from the formulas:
//   logit[i,j] = scale q_i.k_j + (c_i - c_j) for keys j allowed for i (j <= i, in the window)
//   lse_i = log sum_j exp(logit[i,j]),  A[i,j] = exp(logit[i,j] - lse_i),  out_i = sum_j A v_j
// The inputs are the same float32 factors the kernels read, widened to double.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/head_factors.h"

namespace gatescope::test::additive {

struct DenseForward {
    std::vector<double> out;  ///< n x dv
    std::vector<double> lse;  ///< n
};

/// Row by row, O(n) memory per row: fine for n in the thousands.
DenseForward denseForward(const kernels::AdditiveDecayHead& head);

/// The bf16 emulation of the official FoX Triton kernel, in double: per key block of
/// `blockSize`, p = exp(logit - running max) rounded to float then to bfloat16 for P.V while
/// the row sum l accumulates the unrounded p; acc and l are rescaled when the max grows.
DenseForward denseForwardBf16(const kernels::AdditiveDecayHead& head, int blockSize);

/// Full n x n maps (materialized: small n only). Disallowed cells: 0, or -inf for logits.
struct DenseMaps {
    std::vector<double> logit, attention, decay;
};
DenseMaps denseMaps(const kernels::AdditiveDecayHead& head);

}  // namespace gatescope::test::additive
