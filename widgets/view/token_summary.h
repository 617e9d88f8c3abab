// What the model did at one position, in words: the token, and for the next one the loss, the
// target's rank and the entropy of the predicted distribution (all stored in the trace's
// /per_token). Display-free; the Text dock shows it for the cursor, its tooltips for any token.
#pragma once

#include <cstdint>
#include <string>

#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

/// "token 57 'gate' -> next ' decides': loss 1.234 nat, rank 3, entropy 2.10 nat; top:
/// ' decides' 42%, ' is' 13%, ..." (the top predictions where the trace stores them). Without
/// per-token results (or at the last position, which predicts nothing) only the token, with
/// "(no prediction stored)" or "(last position: nothing to predict)". Empty for a position
/// outside the trace.
std::string tokenSummary(const TraceDocument& doc, int64_t position);

/// "; top: 'a' 42%, 'b' 13%, ..." for `position` (ids where the trace has no text for them);
/// empty when the trace stores no top predictions.
std::string topPredictions(const data::PerTokenResults& results, int64_t position);

}  // namespace gatescope::widgets
