// Validation of an AdditiveDecayHead before it reaches the kernels, which trust their inputs.
// Callers that load factors from files run this first and add the file name to the error.
#pragma once

#include <string>

#include "data/common/result.h"
#include "kernels/cpu/head_factors.h"

namespace gatescope::kernels {

/// What a call will read from the head.
struct HeadNeeds {
    bool values = false;  ///< v (attentionForward with dv > 0)
    bool lse = false;     ///< the row lse (Attention tiles)
};

/// Checks shapes, pointers, strides and that every factor the call reads is finite (O(n x d)
/// time, no allocation). On failure the Error names `object` (e.g. "layer 3 head 5") and the
/// first problem found, e.g. "q row 17 column 4 is nan"; Error::file is left for the caller.
Status checkHead(const AdditiveDecayHead& head, const HeadNeeds& needs,
                 const std::string& object = "head");

}  // namespace gatescope::kernels
