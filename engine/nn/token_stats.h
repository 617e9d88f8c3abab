// Private to core/models: per-token loss, target rank and entropy from the final hidden states,
// computed in row chunks so the [N, V] logits never exist at once (unless asked for).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/model/model.h"
#include "engine/nn/layers.h"

namespace gatescope::core {

struct LogitsHead {
    const Linear* projection = nullptr;  ///< hidden -> padded vocabulary
    int64_t vocabSize = 0;               ///< logits past this index are dropped (padding)
    std::optional<double> softcap;       ///< c * tanh(logits / c), applied to the returned logits
    bool lossFromSoftcapped = false;     ///< whether loss/rank/entropy use the softcapped logits
};

/// Fills result.loss / targetRank / entropy / topK, topIds, topLogProbs (and logits when
/// keepLogits) for `hidden` [N, d].
/// targets[i] < 0 means no target at i.
void computeTokenStats(const torch::Tensor& hidden, const LogitsHead& head,
                       std::span<const int32_t> targets, const Precision& precision,
                       bool keepLogits, ForwardResult& result);

}  // namespace gatescope::core
