// The split of one attention logit into its content part (what the query and key alone give) and
// its forgetting part (what the gates take away), shared by core::queryRow and core::keyColumn.
// UI-free.
#pragma once

#include <cstdint>

#include "core/maps/trace_head.h"

namespace gatescope::core {

/// Whether `head`'s logits split: a score made of q and k (not GSA's slot memory) and a decay
/// that changes it (stored cumulative log gates).
bool hasLogitSplit(const TraceHead& head);

/// The gate-free score of query i and key j in the family's log space: scale * q_i.k_j, or
/// p * log(|scale * q_i.k_j| + eps) for power attention. Computed in double. Requires q and k.
double contentScore(const TraceHead& head, int64_t i, int64_t j);

/// What the decay adds to the logit of (i, j): c_i - c_j for the scalar families (exact from the
/// stored cumulative log gate); for Wall, whose gates sit inside the dot product, logit - content.
double forgetScore(const TraceHead& head, int64_t i, int64_t j, double logit, double content);

}  // namespace gatescope::core
