// How a layer forms its token-to-token weights, which decides the factors a trace stores and the
// formula that recomputes its tiles. Traces store it as the layer attribute `score_kind`
// (toString's words); readers turn it into this enum at core/maps' door (mapSpecFromHeader).
#pragma once

#include <optional>
#include <string_view>

namespace gatescope::core {

enum class ScoreKind {
    AdditiveDecay,  ///< softmax(scale q.k + c_i - c_j): Transformer, FoX, GatedFWA, SDPA power
    Power,          ///< power attention's (q.k)^p with its log normalizer
    Gsa,            ///< Gated Slot Attention's two-pass slot memory
    Wall,           ///< Wall attention (per-channel or scalar gates, window, sinks)
};

/// The trace attribute's word: "additive_decay", "power", "gsa", "wall".
std::string_view toString(ScoreKind kind);

/// The kind a trace's word names; nullopt for any other word.
std::optional<ScoreKind> parseScoreKind(std::string_view word);

}  // namespace gatescope::core
