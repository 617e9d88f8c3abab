// Exact FoX values evaluated in the GUI tests from the stored factors with the formulas of
// docs/trace-format.md (not through the viewer's tile code): the reference the drawn and
// printed values are checked against.
#pragma once

#include <cmath>

#include "data/trace/trace_reader.h"

namespace gatescope::test {

/// A FoX head's exact attention weight at (q, k), evaluated here from the stored factors:
/// exp(scale q.k + c_q - c_k - lse_q). NaN when a factor cannot be read.
inline double foxAttention(const data::TraceReader& r, int layer, int head, int64_t q, int64_t k) {
    const auto& header = r.summary().layer(layer)->header;
    auto qf = r.factor(layer, "q", head, q, q + 1),
         kf = r.factor(layer, "k", head * header.nKvHeads / header.nHeads, k, k + 1);
    auto lse = r.factor(layer, "lse", head, q, q + 1),
         cq = r.factor(layer, "log_decay_cumsum", head, q, q + 1),
         ck = r.factor(layer, "log_decay_cumsum", head, k, k + 1);
    if (!(qf && kf && lse && cq && ck)) return NAN;
    double dot = 0;
    for (size_t x = 0; x < qf->values.size(); ++x)
        dot += double(qf->values[x]) * kf->values[x];
    return std::exp(header.extras.value("scale", 1.0) * dot + cq->values[0] - ck->values[0] -
                    lse->values[0]);
}

/// The parts of that weight's logit: content = scale q.k and forget = c_q - c_k.
inline std::pair<double, double> foxLogitParts(const data::TraceReader& r, int layer, int head,
                                               int64_t q, int64_t k) {
    const auto& header = r.summary().layer(layer)->header;
    auto qf = r.factor(layer, "q", head, q, q + 1),
         kf = r.factor(layer, "k", head * header.nKvHeads / header.nHeads, k, k + 1);
    auto cq = r.factor(layer, "log_decay_cumsum", head, q, q + 1),
         ck = r.factor(layer, "log_decay_cumsum", head, k, k + 1);
    if (!(qf && kf && cq && ck)) return {NAN, NAN};
    double dot = 0;
    for (size_t x = 0; x < qf->values.size(); ++x)
        dot += double(qf->values[x]) * kf->values[x];
    return {header.extras.value("scale", 1.0) * dot, double(cq->values[0]) - ck->values[0]};
}

}  // namespace gatescope::test
